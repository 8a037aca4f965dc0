// CORRECT: the tree in shared memory down to 32 values, then warp 0 finishes with __shfl_down_sync
// (offsets 16, 8, 4, 2, 1). Lane 0 adds exactly the pairs the original's last five steps add, in
// the same order, so the sums are bit for bit the original's.
// Expected: accepted
#include "kernels.h"

__global__ void block_sum(int n, const float* x, float* partial) {
  __shared__ float s[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[tid] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int stride = 128; stride > 16; stride >>= 1) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid < 32) {
    float v = s[tid];
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (tid == 0) partial[blockIdx.x] = v;
  }
}

cudaError_t launch_block_sum(int n, const float* x, float* partial) {
  block_sum<<<(n + 255) / 256, 256>>>(n, x, partial);
  return cudaGetLastError();
}
