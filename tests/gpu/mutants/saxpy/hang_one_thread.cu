// WRONG: the thread of element n / 2 (which exists for every n >= 1) spins until x[i] reaches 2,
// which uniform(-1, 1) data never does (a volatile read, so the loop is not optimized away); the
// kernel never finishes and the gate kills it.
// Expected: timeout
#include "kernels.h"

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == n / 2) {
    volatile const float* v = x;
    while (v[i] < 2.0f) {
    }
  }
  if (i < n) y[i] = a * x[i] + y[i];
}

cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {
  saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);
  return cudaGetLastError();
}
