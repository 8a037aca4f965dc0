// WRONG: the kernel is unchanged, but the host launcher now takes `float* x` where kernels.h declares
// `const float* x`: this translation unit defines launch_saxpy(int, float, float*, float*), so a
// program calling the declared launcher would no longer link.
// Expected: compile-failed
#include "kernels.h"

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

cudaError_t launch_saxpy(int n, float a, float* x, float* y) {
  saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);
  return cudaGetLastError();
}
