// WRONG: besides the right sums, thread 0 of the last block also writes partial[gridDim.x] = 0,
// one element past the end of partial (the first word of its guard), on every shape.
// Expected: runtime-failed
#include "kernels.h"

__global__ void block_sum(int n, const float* x, float* partial) {
  __shared__ float s[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[tid] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int stride = 128; stride > 0; stride >>= 1) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) {
    partial[blockIdx.x] = s[0];
    if (blockIdx.x == gridDim.x - 1) partial[gridDim.x] = 0.0f;
  }
}

cudaError_t launch_block_sum(int n, const float* x, float* partial) {
  block_sum<<<(n + 255) / 256, 256>>>(n, x, partial);
  return cudaGetLastError();
}
