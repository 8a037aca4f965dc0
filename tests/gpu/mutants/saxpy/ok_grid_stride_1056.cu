// CORRECT: grid-stride loop with its own fixed grid <<<1056, 256>>> (8 blocks per SM on 132 SMs):
// every i < n is visited exactly once for any n >= 1, with the same arithmetic as the original.
// Expected: accepted
#include "kernels.h"

__global__ void saxpy(int n, float a, const float* x, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {
  saxpy<<<1056, 256>>>(n, a, x, y);
  return cudaGetLastError();
}
