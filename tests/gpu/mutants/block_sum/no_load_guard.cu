// WRONG: the bounds guard on the load is dropped (s[tid] = x[i]). At n = 2^22 every block is full
// and the sums are right; on the probe shapes (n + 1, the small n) the last block reads past the end
// of x into its guard (NaN), so its sum is NaN. A read only: nothing is written out of bounds.
// Expected: wrong-result
#include "kernels.h"

__global__ void block_sum(int n, const float* x, float* partial) {
  __shared__ float s[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[tid] = x[i];
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
