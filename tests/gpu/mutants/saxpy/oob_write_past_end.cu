// WRONG: besides the right y, the thread of the last element also writes y[n] = 0, one element
// past the end of y (the first word of the guard after it), on every shape.
// Expected: runtime-failed
#include "kernels.h"

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = a * x[i] + y[i];
    if (i == n - 1) y[n] = 0.0f;
  }
}

cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {
  saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);
  return cudaGetLastError();
}
