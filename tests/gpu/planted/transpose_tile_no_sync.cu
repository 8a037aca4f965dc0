// Planted wrong variant of examples/experts/src/naive/transpose.cu: the tile-transpose rewrite
// (32 x 33 shared tile, 32 x 8 block) with the __syncthreads() between the two phases removed.
// A warp reads tile columns that other warps of the block have not written yet, so elements of
// out come from stale shared memory (a race: mostly wrong on large matrices, not on every run at
// tiny sizes). The gate must reject it as wrong-result.
#include "naive.h"

__global__ void transpose(int rows, int cols, const float* in, float* out) {
  __shared__ float kl_tile[32][33];
  for (int kl_j = 0; kl_j < 32; kl_j += 8) {
    int x = blockIdx.x * 32 + threadIdx.x;  // column of `in`
    int y = blockIdx.y * 32 + threadIdx.y + kl_j;  // row of `in`
    if (x < cols && y < rows) kl_tile[threadIdx.y + kl_j][threadIdx.x] = in[y * cols + x];
  }
  // missing: __syncthreads();
  for (int kl_j = 0; kl_j < 32; kl_j += 8) {
    int x = blockIdx.x * 32 + threadIdx.y + kl_j;
    int y = blockIdx.y * 32 + threadIdx.x;
    if (x < cols && y < rows) out[x * rows + y] = kl_tile[threadIdx.x][threadIdx.y + kl_j];
  }
}

cudaError_t launch_transpose(int rows, int cols, const float* in, float* out) {
  // the grid written in the launch: `klineage gate` evaluates a hand-written variant's own <<<>>>
  transpose<<<dim3((cols + 31) / 32, (rows + 31) / 32), dim3(32, 8)>>>(rows, cols, in, out);
  return cudaGetLastError();
}
