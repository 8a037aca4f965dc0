// A mineable expert (docs/lineage.md in KLineage): the naive histogram of src/naive/histogram.cu as
// privatize-histogram writes it with coarsen 256 (256 bins per block in shared memory, a grid-stride
// loop of shared atomics, one global atomicAdd per non-empty bin and block, grid.x / 256). Its
// inverse walks it back to the naive kernel: -privatize-histogram (grid.x * coarsen). The
// `mine_experts` target; never optimized by KLineage.
#include "mine.h"

__global__ void mine_histogram(int n, unsigned char* data, unsigned int* bins) {
  __shared__ unsigned int kl_bins[256];
  for (int kl_b = threadIdx.x; kl_b < 256; kl_b += blockDim.x) kl_bins[kl_b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&kl_bins[data[i]], 1u);
  __syncthreads();
  for (int kl_b = threadIdx.x; kl_b < 256; kl_b += blockDim.x)
    if (kl_bins[kl_b] != 0) atomicAdd(&bins[kl_b], kl_bins[kl_b]);
}

cudaError_t launch_mine_histogram(int n, unsigned char* data, unsigned int* bins) {
  cudaError_t err = cudaMemsetAsync(bins, 0, 256 * sizeof(unsigned int));
  if (err != cudaSuccess) return err;
  mine_histogram<<<(n + 65535) / 65536, 256>>>(n, data, bins);  // 256 threads x 256 bytes per block
  return cudaGetLastError();
}
