// A mineable expert (docs/lineage.md in KLineage): the naive reduce_sum of src/naive/reduce.cu as
// block-reduce-atomic writes it with the block-reduce-atomic-vec4 skill's parameters (coarsen 16,
// unroll 4, vector_width 4): float4 loads of x when it is 16-byte aligned, the n % 4 tail, the
// scalar loop otherwise, warp shuffles, one atomicAdd per block, grid.x / 16. Unlike mine_reduce_sum
// it has neither __restrict__ nor __launch_bounds__, so the skill mined from it is anchored where a
// naive reduction is (issue 8: the mined reductions lacked the float4 step). The `mine_experts`
// target; never optimized by KLineage.
#include "mine.h"

__global__ void mine_reduce_sum_vec4(int n, float* x, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i]);
}

cudaError_t launch_mine_reduce_sum_vec4(int n, float* x, float* out) {
  cudaError_t err = cudaMemsetAsync(out, 0, sizeof(float));
  if (err != cudaSuccess) return err;
  mine_reduce_sum_vec4<<<(n + 4095) / 4096, 256>>>(n, x, out);  // 256 threads x 16 elements per block
  return cudaGetLastError();
}
