// WRONG: deadlock. Warp 0 spins on a shared flag that thread 32 (warp 1) sets only after a
// __syncthreads() that warp 0 never reaches; warps 1..7 wait at that barrier for warp 0 forever.
// (The flag is volatile, so the spin really rereads it.)
// Expected: timeout
#include "kernels.h"

__global__ void block_sum(int n, const float* x, float* partial) {
  __shared__ float s[256];
  __shared__ volatile int ready;
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid == 0) ready = 0;
  s[tid] = i < n ? x[i] : 0.0f;
  __syncthreads();
  if (tid < 32) {
    while (ready == 0) {
    }
  }
  __syncthreads();
  if (tid == 32) ready = 1;
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
