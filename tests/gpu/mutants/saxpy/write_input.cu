// WRONG (hostile): y is right, but the kernel then clears x[i], an input buffer the original leaves
// unchanged (a caller reusing x would see zeros). The gate compares every input after each run.
// Expected: wrong-result
#include "kernels.h"

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float xi = x[i];
    y[i] = a * xi + y[i];
    const_cast<float*>(x)[i] = 0.0f;
  }
}

cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {
  saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);
  return cudaGetLastError();
}
