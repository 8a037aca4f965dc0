// WRONG: the __syncthreads() between the loads into s and the tree is missing, so the first step
// (threads 0..127 adding s[tid + 128]) races with warps 4..7 storing their loads: a thread may add
// a stale slot (whatever an earlier block left there). With 16384 blocks per run and global loads
// of the warps completing in varying order, some blocks sum stale values.
// Expected: wrong-result
#include "kernels.h"

__global__ void block_sum(int n, const float* x, float* partial) {
  __shared__ float s[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[tid] = i < n ? x[i] : 0.0f;
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
