#include "numerics.h"

__global__ void col_sum_kernel(const float* x, float* out, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= cols) return;
  float s = 0.0f;
  for (int r = 0; r < rows; ++r) s += x[(size_t)r * cols + col];
  out[col] = s;
}

cudaError_t col_sum(const float* x, float* out, int rows, int cols) {
  col_sum_kernel<<<(cols + 255) / 256, 256>>>(x, out, rows, cols);
  return cudaGetLastError();
}
