// A mineable expert (docs/lineage.md): the naive reduce_sum of src/naive/reduce.cu as
// block-reduce-atomic's forward writes it (a grid-stride sum in a register, warp shuffles, one
// atomicAdd per block, grid.x / 16), plus __restrict__ pointers and __launch_bounds__(256): the
// shapes the inverses recognize. The `mine_experts` target; never optimized by KLineage.
#include "mine.h"

__global__ void __launch_bounds__(256) mine_reduce_sum(int n, float* x, float* out) {
  float kl_sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) kl_sum += x[i];
  // one sum per warp, then per block, then one atomic per block
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) kl_sum += __shfl_down_sync(0xffffffffu, kl_sum, kl_offset);
  __shared__ float kl_warp_sums[32];
  if (threadIdx.x % 32 == 0) kl_warp_sums[threadIdx.x / 32] = kl_sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    kl_sum = threadIdx.x < blockDim.x / 32 ? kl_warp_sums[threadIdx.x] : 0;
    for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) kl_sum += __shfl_down_sync(0xffffffffu, kl_sum, kl_offset);
    if (threadIdx.x == 0) atomicAdd(out, kl_sum);
  }
}

// The pointers are not const: -restrict-pointers drops the const it removes __restrict__ with.
cudaError_t launch_mine_reduce_sum(int n, float* x, float* out) {
  cudaError_t err = cudaMemsetAsync(out, 0, sizeof(float));
  if (err != cudaSuccess) return err;
  mine_reduce_sum<<<(n + 4095) / 4096, 256>>>(n, x, out);  // 256 threads x 16 elements per block
  return cudaGetLastError();
}
