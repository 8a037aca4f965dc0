// WRONG: wrong shared-memory size. The dynamic-shared-memory version launched with
// 128 * sizeof(float) bytes (512) although the kernel uses 256 floats (1024): the stores and loads
// of s[128..255] fall outside the block's shared-memory window, which the GPU checks (an
// out-of-range shared address aborts the kernel: illegal memory access on sm_90).
// Expected: runtime-failed
#include "kernels.h"

__global__ void block_sum(int n, const float* x, float* partial) {
  extern __shared__ float s[];
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
  block_sum<<<(n + 255) / 256, 256, 128 * sizeof(float)>>>(n, x, partial);
  return cudaGetLastError();
}
