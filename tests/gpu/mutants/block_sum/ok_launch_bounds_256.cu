// CORRECT: __launch_bounds__(256), which matches the 256-thread blocks it is launched with.
// Expected: accepted
#include "kernels.h"

__global__ void __launch_bounds__(256) block_sum(int n, const float* x, float* partial) {
  __shared__ float s[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[tid] = i < n ? x[i] : 0.0f;
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
