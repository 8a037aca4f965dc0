// WRONG (input error): the kernel takes a fifth parameter (a stride, passed as 1), so its
// signature no longer matches the original's and the workload has no argument for it. The
// arithmetic itself is right for any n.
// Expected: not-run
#include "kernels.h"

__global__ void saxpy(int n, float a, const float* x, float* y, int stride) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * stride;
  if (i < n) y[i] = a * x[i] + y[i];
}

cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {
  saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y, 1);
  return cudaGetLastError();
}
