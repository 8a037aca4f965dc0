// WRONG: reads stale shared memory. A persistent-block version (its own fixed grid <<<1024, 256>>>,
// each block loops over tiles blockIdx.x, blockIdx.x + 1024, ...) that loads s[tid] only when
// i < n and does not write 0 otherwise. At n = 2^22 every tile is full and the sums are right. On
// the n + 1 probe the last tile (16384, block 0's 17th) has one element, and its slots 1..255 still
// hold what the tree of block 0's previous, full tile left there (elements and partial sums), so
// its sum is deterministically wrong. (The small probe may also read never-written slots.)
// Expected: wrong-result
#include "kernels.h"

__global__ void block_sum(int n, const float* x, float* partial) {
  __shared__ float s[256];
  int tid = threadIdx.x;
  int tiles = (n + 255) / 256;
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    int i = tile * 256 + tid;
    if (i < n) s[tid] = x[i];
    __syncthreads();
    for (int stride = 128; stride > 0; stride >>= 1) {
      if (tid < stride) s[tid] += s[tid + stride];
      __syncthreads();
    }
    if (tid == 0) partial[tile] = s[0];
    __syncthreads();
  }
}

cudaError_t launch_block_sum(int n, const float* x, float* partial) {
  block_sum<<<1024, 256>>>(n, x, partial);
  return cudaGetLastError();
}
