// Planted wrong variant of examples/experts/src/naive/histogram.cu: the privatize-histogram shape
// without the __syncthreads() between counting and merging, so late counts of a block are lost.
// The gate must reject it (wrong-result).
#include "naive.h"

__global__ void histogram(int n, const unsigned char* data, unsigned int* bins) {
  __shared__ unsigned int kl_bins[256];
  for (int kl_b = threadIdx.x; kl_b < 256; kl_b += blockDim.x) kl_bins[kl_b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&kl_bins[data[i]], 1u);
  // planted: no __syncthreads() here, so a bin can be merged before other threads have counted into it
  for (int kl_b = threadIdx.x; kl_b < 256; kl_b += blockDim.x)
    if (kl_bins[kl_b] != 0) atomicAdd(&bins[kl_b], kl_bins[kl_b]);
}

cudaError_t launch_histogram(int n, const unsigned char* data, unsigned int* bins) {
  cudaError_t err = cudaMemsetAsync(bins, 0, 256 * sizeof(unsigned int));
  if (err != cudaSuccess) return err;
  histogram<<<(((n + 255) / 256) + 63) / 64, 256>>>(n, data, bins);
  return cudaGetLastError();
}
