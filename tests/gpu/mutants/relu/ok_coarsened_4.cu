// CORRECT: four elements per thread (strided by blockDim.x, so accesses stay coalesced), each
// guarded, with its own grid (n + 1023) / 1024 of 256-thread blocks: every i < n exactly once for
// any n >= 1.
// Expected: accepted
#include "kernels.h"

__global__ void relu(int n, const float* in, float* out) {
  int base = blockIdx.x * (4 * blockDim.x) + threadIdx.x;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    int i = base + k * blockDim.x;
    if (i < n) out[i] = in[i] > 0.0f ? in[i] : 0.0f;
  }
}

cudaError_t launch_relu(int n, const float* in, float* out) {
  relu<<<(n + 1023) / 1024, 256>>>(n, in, out);
  return cudaGetLastError();
}
