// Hand-written variant of gemv: one warp per row, lanes summing strided products, a shuffle tree.
#include "numerics.h"

__global__ void gemv_kernel(const float* A, const float* v, float* y, int rows, int cols) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32;
  if (r >= rows) return;
  float sum = 0.0f;
  for (int c = lane; c < cols; c += 32) sum += A[(size_t)r * cols + c] * v[c];
  for (int off = 16; off > 0; off /= 2) sum += __shfl_down_sync(0xffffffffu, sum, off);
  if (lane == 0) y[r] = sum;
}

cudaError_t gemv(const float* A, const float* v, float* y, int rows, int cols) {
  gemv_kernel<<<(rows * 32 + 255) / 256, 256>>>(A, v, y, rows, cols);
  return cudaGetLastError();
}
