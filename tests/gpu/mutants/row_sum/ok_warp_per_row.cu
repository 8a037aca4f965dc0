// CORRECT: one warp per row, each lane summing a strided part, then a shuffle tree: the sum in
// another order (rtol 1e-5 rejected it before the oracle), about as accurate as the original or more.
// Own launch: (rows * 32 + 255) / 256 blocks of 256 threads.
// Expected: accepted
#include "kernels.h"

__global__ void row_sum(int rows, int cols, const float* x, float* out) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32;
  if (warp >= rows) return;
  float s = 0.0f;
  for (int c = lane; c < cols; c += 32) s += x[(size_t)warp * cols + c];
  for (int off = 16; off > 0; off /= 2) s += __shfl_down_sync(0xffffffffu, s, off);
  if (lane == 0) out[warp] = s;
}

cudaError_t launch_row_sum(int rows, int cols, const float* x, float* out) {
  row_sum<<<(rows * 32 + 255) / 256, 256>>>(rows, cols, x, out);
  return cudaGetLastError();
}
