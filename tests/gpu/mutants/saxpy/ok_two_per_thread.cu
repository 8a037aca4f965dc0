// CORRECT: two elements per thread (i and i + blockDim.x, each guarded, coalesced) with its own
// grid (n + 511) / 512 of 256-thread blocks: every i < n exactly once for any n >= 1.
// Expected: accepted
#include "kernels.h"

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * (2 * blockDim.x) + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
  int j = i + blockDim.x;
  if (j < n) y[j] = a * x[j] + y[j];
}

cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {
  saxpy<<<(n + 511) / 512, 256>>>(n, a, x, y);
  return cudaGetLastError();
}
