// WRONG: a race in global memory. Thread 0 zeroes partial[blockIdx.x], then every thread adds its
// element to it with a plain (non-atomic) read-modify-write: the lanes of a warp load the same old
// value and one store survives.
// Expected: wrong-result
#include "kernels.h"

__global__ void block_sum(int n, const float* x, float* partial) {
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid == 0) partial[blockIdx.x] = 0.0f;
  __syncthreads();
  if (i < n) partial[blockIdx.x] += x[i];
}

cudaError_t launch_block_sum(int n, const float* x, float* partial) {
  block_sum<<<(n + 255) / 256, 256>>>(n, x, partial);
  return cudaGetLastError();
}
