// CORRECT: the global index is computed in 64 bits (long long); same elements, same arithmetic.
// Expected: accepted
#include "kernels.h"

__global__ void saxpy(int n, float a, const float* x, float* y) {
  long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {
  saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);
  return cudaGetLastError();
}
