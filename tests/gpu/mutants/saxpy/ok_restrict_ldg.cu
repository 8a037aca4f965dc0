// CORRECT: `__restrict__` pointers (x and y never alias in the gate, nor in the original's callers)
// and x read through the read-only cache with __ldg. A top-level qualifier of a parameter, so the
// signature (and the mangled name) is the original's. Same arithmetic.
// Expected: accepted
#include "kernels.h"

__global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * __ldg(&x[i]) + y[i];
}

cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {
  saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);
  return cudaGetLastError();
}
