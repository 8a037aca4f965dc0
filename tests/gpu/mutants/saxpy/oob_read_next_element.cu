// WRONG: reads x[i + 1], one past the end for i = n - 1, and lets it reach the output through
// `+ 0.0f * x[i + 1]` (exact for every in-range value: 0 * finite = +-0, but 0 * NaN = NaN). The
// word past the end of x is guard pattern, a NaN, so y[n-1] becomes NaN on every shape. Nothing is
// written out of bounds.
// Expected: wrong-result
#include "kernels.h"

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i] + 0.0f * x[i + 1];
}

cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {
  saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);
  return cudaGetLastError();
}
