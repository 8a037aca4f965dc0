// A mineable expert (docs/lineage.md in KLineage): the naive reduce_sum of src/naive/reduce.cu as
// block-reduce-atomic writes it with the block-reduce-atomic-vec4 skill's parameters (coarsen 16,
// unroll 4, vector_width 4): float4 loads of x when it is 16-byte aligned, the n % 4 tail, the
// scalar loop otherwise, warp shuffles, one atomicAdd per block, grid.x / 16. Unlike mine_reduce_sum
// it has neither __restrict__ nor __launch_bounds__, so the skill mined from it is anchored where a
// naive reduction is (issue 8: the mined reductions lacked the float4 step). The `mine_experts`
// target; never optimized by KLineage.
#include "mine.h"

__global__ void mine_reduce_sum_vec4(int n, float* x, float* out) {
  float kl_sum = 0;
  if ((reinterpret_cast<unsigned long long>(x) & 15) == 0) {
    #pragma unroll 4
    for (int kl_v = blockIdx.x * blockDim.x + threadIdx.x; kl_v < n / 4; kl_v += blockDim.x * gridDim.x) {
      float4 kl_x4 = reinterpret_cast<const float4*>(x)[kl_v];
      kl_sum += kl_x4.x;
      kl_sum += kl_x4.y;
      kl_sum += kl_x4.z;
      kl_sum += kl_x4.w;
    }
    for (int i = (n / 4) * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) kl_sum += x[i];
  } else {
    #pragma unroll 4
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) kl_sum += x[i];
  }
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

cudaError_t launch_mine_reduce_sum_vec4(int n, float* x, float* out) {
  cudaError_t err = cudaMemsetAsync(out, 0, sizeof(float));
  if (err != cudaSuccess) return err;
  mine_reduce_sum_vec4<<<(n + 4095) / 4096, 256>>>(n, x, out);  // 256 threads x 16 elements per block
  return cudaGetLastError();
}
