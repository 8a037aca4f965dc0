// Expert histogram: each block keeps its own 256 bins in shared memory (shared-memory atomics are
// far cheaper than global ones and contend only within the block), reads the input as uchar4 in a
// grid-stride loop, then adds its bins to the global ones: 256 global atomics per block.
#include "common.cuh"
#include "experts.h"

namespace {

constexpr int kBins = 256, kBlock = 256;

__global__ void __launch_bounds__(kBlock) histogram_shared(int n, const unsigned char* __restrict__ data,
                                                           unsigned int* __restrict__ bins) {
  __shared__ unsigned int local[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  const int n4 = n / 4;
  const uchar4* d4 = reinterpret_cast<const uchar4*>(data);
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
    uchar4 v = d4[i];
    atomicAdd(&local[v.x], 1u);
    atomicAdd(&local[v.y], 1u);
    atomicAdd(&local[v.z], 1u);
    atomicAdd(&local[v.w], 1u);
  }
  for (int i = 4 * n4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x)
    if (local[b]) atomicAdd(&bins[b], local[b]);
}

}  // namespace

cudaError_t expert_histogram(int n, const unsigned char* data, unsigned int* bins) {
  cudaError_t e = cudaMemsetAsync(bins, 0, kBins * sizeof(unsigned int));
  if (e != cudaSuccess) return e;
  histogram_shared<<<expert_detail::gridFor(n / 4 + 1, kBlock, 4), kBlock>>>(n, data, bins);
  return cudaGetLastError();
}
