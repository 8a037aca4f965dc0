// WRONG: wrong shared-memory size. `__shared__ float s[128]` for 256-thread blocks: threads
// 128..255 store s[tid] past the end of the block's only shared array, outside its shared-memory
// window, which the GPU checks (an out-of-range shared address aborts the kernel: illegal memory
// access on sm_90).
// Expected: runtime-failed
#include "kernels.h"

__global__ void block_sum(int n, const float* x, float* partial) {
  __shared__ float s[128];
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
