#include "numerics.h"

__global__ void row_sum_kernel(const float* x, float* out, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float acc = 0.0f;
    for (int c = 0; c < cols; c++) acc += x[(size_t)row * cols + c];
    out[row] = acc;
  }
}

cudaError_t row_sum(const float* x, float* out, int rows, int cols) {
  row_sum_kernel<<<(rows + 127) / 128, 128>>>(x, out, rows, cols);
  return cudaGetLastError();
}
