// Sum of n floats: each block of BLOCK threads loads one element per thread, adds them up in a
// shared-memory tree and adds its total to *out with one atomicAdd. The block size is a template
// parameter, picked at run time from the launcher's `threads` by a switch.
#include <cstdio>

#include "launch_sites.h"

template <unsigned BLOCK>
__global__ void block_sum(const float* in, float* out, int n) {
  __shared__ float partial[BLOCK];
  const unsigned tid = threadIdx.x;
  const unsigned i = blockIdx.x * BLOCK + tid;
  partial[tid] = i < (unsigned)n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
    if (tid < s) partial[tid] += partial[tid + s];
    __syncthreads();
  }
  if (tid == 0) atomicAdd(out, partial[0]);
}

void reduce_sum(const float* in, float* out, int n, int threads) {
  const int blocks = (n + threads - 1) / threads;
  cudaMemsetAsync(out, 0, sizeof(float));
  switch (threads) {
    case 512: block_sum<512><<<blocks, 512>>>(in, out, n); break;
    case 256: block_sum<256><<<blocks, 256>>>(in, out, n); break;
    case 128: block_sum<128><<<blocks, 128>>>(in, out, n); break;
    default: std::fprintf(stderr, "reduce_sum: %d threads per block is not supported\n", threads); break;
  }
}
