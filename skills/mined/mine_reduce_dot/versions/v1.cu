// A mineable expert (docs/lineage.md in KLineage): the naive reduce_dot of src/naive/reduce.cu as
// block-reduce-atomic writes it with coarsen 16 and unroll 4 (a grid-stride sum in a register under
// `#pragma unroll 4`, warp shuffles, one atomicAdd per block, grid.x / 16). Its inverse walks it back
// to the naive kernel: -block-reduce-atomic (grid.x * coarsen). The `mine_experts` target; never
// optimized by KLineage.
#include "mine.h"

__global__ void mine_reduce_dot(int n, float* x, float* y, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i] * y[i]);
}

cudaError_t launch_mine_reduce_dot(int n, float* x, float* y, float* out) {
  cudaError_t err = cudaMemsetAsync(out, 0, sizeof(float));
  if (err != cudaSuccess) return err;
  mine_reduce_dot<<<(n + 4095) / 4096, 256>>>(n, x, y, out);  // 256 threads x 16 elements per block
  return cudaGetLastError();
}
