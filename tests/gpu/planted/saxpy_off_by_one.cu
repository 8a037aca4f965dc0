// Planted wrong variant of examples/quickstart/src/saxpy.cu: the guard skips the last element.
// The gate must reject it as wrong-result (y[n-1] keeps its input value).
#include "kernels.h"

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - 1) y[i] = a * x[i] + y[i];
}

cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {
  saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);
  return cudaGetLastError();
}
