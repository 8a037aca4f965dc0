// WRONG: a race. Instead of the tree every thread adds its element to one shared total with a
// plain (non-atomic) `total += x[i]`: the 32 lanes of a warp all load the same old total and only
// one store survives, so at most one element per warp instruction counts.
// Expected: wrong-result
#include "kernels.h"

__global__ void block_sum(int n, const float* x, float* partial) {
  __shared__ float total;
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid == 0) total = 0.0f;
  __syncthreads();
  if (i < n) total += x[i];
  __syncthreads();
  if (tid == 0) partial[blockIdx.x] = total;
}

cudaError_t launch_block_sum(int n, const float* x, float* partial) {
  block_sum<<<(n + 255) / 256, 256>>>(n, x, partial);
  return cudaGetLastError();
}
