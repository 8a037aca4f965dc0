#include "numerics.h"

__global__ void gemv_kernel(const float* A, const float* v, float* y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float sum = 0.0f;
  for (int c = 0; c < cols; ++c) sum += A[(size_t)r * cols + c] * v[c];
  y[r] = sum;
}

cudaError_t gemv(const float* A, const float* v, float* y, int rows, int cols) {
  gemv_kernel<<<(rows + 255) / 256, 256>>>(A, v, y, rows, cols);
  return cudaGetLastError();
}
