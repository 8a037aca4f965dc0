// WRONG: besides the right y, thread 0 writes x[-1] = 0, one element before the start of the INPUT
// x (outside x itself, so only the guard check can see it), on every shape.
// Expected: runtime-failed
#include "kernels.h"

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
  if (i == 0) const_cast<float*>(x)[-1] = 0.0f;
}

cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {
  saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);
  return cudaGetLastError();
}
