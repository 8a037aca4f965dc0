// A mineable expert (docs/lineage.md): the naive reduce_sum of src/naive/reduce.cu as
// block-reduce-atomic's forward writes it (a grid-stride sum in a register, warp shuffles, one
// atomicAdd per block, grid.x / 16), plus __restrict__ pointers and __launch_bounds__(256): the
// shapes the inverses recognize. The `mine_experts` target; never optimized by KLineage.
#include "mine.h"

__global__ void mine_reduce_sum(int n, const float* __restrict__ x, float* __restrict__ out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i]);
}

// The pointers are not const: -restrict-pointers drops the const it removes __restrict__ with.
cudaError_t launch_mine_reduce_sum(int n, float* x, float* out) {
  cudaError_t err = cudaMemsetAsync(out, 0, sizeof(float));
  if (err != cudaSuccess) return err;
  mine_reduce_sum<<<(n + 4095) / 4096, 256>>>(n, x, out);  // 256 threads x 16 elements per block
  return cudaGetLastError();
}
