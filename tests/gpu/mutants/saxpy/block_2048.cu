// WRONG: launches 2048-thread blocks (grid (n + 2047) / 2048); a block has at most 1024 threads,
// so the launch itself fails (invalid configuration). The kernel is unchanged.
// Expected: runtime-failed
#include "kernels.h"

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {
  saxpy<<<(n + 2047) / 2048, 2048>>>(n, a, x, y);
  return cudaGetLastError();
}
