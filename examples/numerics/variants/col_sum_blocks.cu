// Hand-written variant of col_sum: 32 x 8 blocks, each thread summing every 8th row of its column,
// then the 8 partial sums of a column added in shared memory (a reassociated sum).
#include "numerics.h"

__global__ void col_sum_kernel(const float* x, float* out, int rows, int cols) {
  __shared__ float part[8][33];
  int col = blockIdx.x * 32 + threadIdx.x;
  float s = 0.0f;
  if (col < cols)
    for (int r = threadIdx.y; r < rows; r += 8) s += x[(size_t)r * cols + col];
  part[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.y == 0 && col < cols) {
    float t = 0.0f;
    for (int k = 0; k < 8; ++k) t += part[k][threadIdx.x];
    out[col] = t;
  }
}

cudaError_t col_sum(const float* x, float* out, int rows, int cols) {
  col_sum_kernel<<<(cols + 31) / 32, dim3(32, 8)>>>(x, out, rows, cols);
  return cudaGetLastError();
}
