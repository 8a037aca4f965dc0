// WRONG: the guard is `i <= n`, so thread n (when the grid has one) reads x[n], y[n] and writes
// y[n], one element past the end. At n = 2^22 the grid has exactly n threads and nothing happens;
// on the probe shapes (n + 1, the small n) the grid has spare threads and y[n] (the first word of
// the guard after y) gets a NaN that is not the guard pattern.
// Expected: runtime-failed
#include "kernels.h"

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) y[i] = a * x[i] + y[i];
}

cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {
  saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);
  return cudaGetLastError();
}
