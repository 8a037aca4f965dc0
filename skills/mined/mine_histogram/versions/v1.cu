// A mineable expert (docs/lineage.md in KLineage): the naive histogram of src/naive/histogram.cu as
// privatize-histogram writes it with coarsen 256 (256 bins per block in shared memory, a grid-stride
// loop of shared atomics, one global atomicAdd per non-empty bin and block, grid.x / 256). Its
// inverse walks it back to the naive kernel: -privatize-histogram (grid.x * coarsen). The
// `mine_experts` target; never optimized by KLineage.
#include "mine.h"

__global__ void mine_histogram(int n, unsigned char* data, unsigned int* bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[data[i]], 1u);
}

cudaError_t launch_mine_histogram(int n, unsigned char* data, unsigned int* bins) {
  cudaError_t err = cudaMemsetAsync(bins, 0, 256 * sizeof(unsigned int));
  if (err != cudaSuccess) return err;
  mine_histogram<<<(n + 65535) / 65536, 256>>>(n, data, bins);  // 256 threads x 256 bytes per block
  return cudaGetLastError();
}
