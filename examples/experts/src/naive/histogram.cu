// Naive on purpose: one thread per input byte, one atomicAdd on the global bin. Never modified by
// KLineage.
#include "naive.h"

__global__ void histogram(int n, const unsigned char* data, unsigned int* bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[data[i]], 1u);
}

cudaError_t launch_histogram(int n, const unsigned char* data, unsigned int* bins) {
  cudaError_t err = cudaMemsetAsync(bins, 0, 256 * sizeof(unsigned int));
  if (err != cudaSuccess) return err;
  histogram<<<(n + 255) / 256, 256>>>(n, data, bins);
  return cudaGetLastError();
}
