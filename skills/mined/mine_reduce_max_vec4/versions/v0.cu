// A mineable expert (docs/lineage.md in KLineage): the naive reduce_max of src/naive/reduce.cu (the
// atomicCAS loop) as block-reduce-cas writes it with the block-reduce-cas-vec4 skill's parameters
// (coarsen 16, unroll 4, vector_width 4): float4 loads of x when it is 16-byte aligned, the n % 4
// tail, the scalar scan otherwise, warp shuffles, the compare-and-swap loop once per block,
// grid.x / 16. The `mine_experts` target; never optimized by KLineage.
#include <cmath>

#include "mine.h"

__global__ void mine_reduce_max_vec4(int n, float* x, float* out) {
  float kl_best = -INFINITY;
  if ((reinterpret_cast<unsigned long long>(x) & 15) == 0) {
    #pragma unroll 4
    for (int kl_v = blockIdx.x * blockDim.x + threadIdx.x; kl_v < n / 4; kl_v += blockDim.x * gridDim.x) {
      float4 kl_x4 = reinterpret_cast<const float4*>(x)[kl_v];
      kl_best = fmaxf(kl_best, kl_x4.x);
      kl_best = fmaxf(kl_best, kl_x4.y);
      kl_best = fmaxf(kl_best, kl_x4.z);
      kl_best = fmaxf(kl_best, kl_x4.w);
    }
    for (int i = (n / 4) * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) kl_best = fmaxf(kl_best, x[i]);
  } else {
    #pragma unroll 4
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) kl_best = fmaxf(kl_best, x[i]);
  }
  // one maximum per warp, then per block, then one atomic update per block
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) kl_best = fmaxf(kl_best, __shfl_down_sync(0xffffffffu, kl_best, kl_offset));
  __shared__ float kl_warp_best[32];
  if (threadIdx.x % 32 == 0) kl_warp_best[threadIdx.x / 32] = kl_best;
  __syncthreads();
  if (threadIdx.x < 32) {
    kl_best = threadIdx.x < blockDim.x / 32 ? kl_warp_best[threadIdx.x] : -INFINITY;
    for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) kl_best = fmaxf(kl_best, __shfl_down_sync(0xffffffffu, kl_best, kl_offset));
  }
  if (threadIdx.x == 0) {
    float v = kl_best;
    int* addr = reinterpret_cast<int*>(out);
    int old = *addr;
    while (v > __int_as_float(old)) {
      int assumed = old;
      old = atomicCAS(addr, assumed, __float_as_int(v));
      if (old == assumed) break;
    }
  }
}

cudaError_t launch_mine_reduce_max_vec4(int n, float* x, float* out) {
  // start from x[0], which is part of the maximum anyway (as the naive launch_reduce_max)
  cudaError_t err = cudaMemcpyAsync(out, x, sizeof(float), cudaMemcpyDeviceToDevice);
  if (err != cudaSuccess) return err;
  mine_reduce_max_vec4<<<(n + 4095) / 4096, 256>>>(n, x, out);  // 256 threads x 16 elements per block
  return cudaGetLastError();
}
