// A mineable expert (docs/lineage.md in KLineage): the naive reduce_max of src/naive/reduce.cu (the
// atomicCAS loop) as block-reduce-cas writes it with the block-reduce-cas-vec4 skill's parameters
// (coarsen 16, unroll 4, vector_width 4): float4 loads of x when it is 16-byte aligned, the n % 4
// tail, the scalar scan otherwise, warp shuffles, the compare-and-swap loop once per block,
// grid.x / 16. The `mine_experts` target; never optimized by KLineage.
#include <cmath>

#include "mine.h"

__global__ void mine_reduce_max_vec4(int n, float* x, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
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
