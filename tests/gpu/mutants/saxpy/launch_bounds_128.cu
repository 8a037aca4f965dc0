// WRONG: declares __launch_bounds__(128) but is still launched with 256-thread blocks; the launch
// fails (more threads than the kernel was compiled for).
// Expected: runtime-failed
#include "kernels.h"

__global__ void __launch_bounds__(128) saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {
  saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);
  return cudaGetLastError();
}
