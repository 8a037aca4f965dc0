// CORRECT: 512-thread blocks with its own grid (n + 511) / 512; the kernel is unchanged (it indexes
// with blockDim.x), so every i < n is covered for any n >= 1.
// Expected: accepted
#include "kernels.h"

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {
  saxpy<<<(n + 511) / 512, 512>>>(n, a, x, y);
  return cudaGetLastError();
}
