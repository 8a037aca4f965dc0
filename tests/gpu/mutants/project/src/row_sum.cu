// Naive on purpose: one thread per row, a float accumulator summing left to right.
#include "kernels.h"

__global__ void row_sum(int rows, int cols, const float* x, float* out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) s += x[(size_t)r * cols + c];
  out[r] = s;
}

cudaError_t launch_row_sum(int rows, int cols, const float* x, float* out) {
  row_sum<<<(rows + 127) / 128, 128>>>(rows, cols, x, out);
  return cudaGetLastError();
}
