// WRONG: wrong index. Loads x[tid] instead of x[i] (the block offset is dropped), so every block
// sums the first 256 elements: only partial[0] is right.
// Expected: wrong-result
#include "kernels.h"

__global__ void block_sum(int n, const float* x, float* partial) {
  __shared__ float s[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[tid] = i < n ? x[tid] : 0.0f;
  __syncthreads();
  for (int stride = 128; stride > 0; stride >>= 1) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = s[0];
}

cudaError_t launch_block_sum(int n, const float* x, float* partial) {
  block_sum<<<(n + 255) / 256, 256>>>(n, x, partial);
  return cudaGetLastError();
}
