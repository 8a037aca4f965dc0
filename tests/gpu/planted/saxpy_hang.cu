// Planted hanging variant of examples/quickstart/src/saxpy.cu: every thread spins on an input
// (uniform(-1, 1) values never reach 2). The gate must kill it and report timeout.
#include "kernels.h"

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  volatile const float* v = x;
  while (v[0] < 2.0f) {
  }
  if (i < n) y[i] = a * x[i] + y[i];
}

cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {
  saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);
  return cudaGetLastError();
}
