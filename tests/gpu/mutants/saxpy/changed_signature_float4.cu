// WRONG (input error): takes x as `const float4*` instead of `const float*` (the launcher casts),
// so the kernel's signature no longer matches the original's and the workload cannot describe it.
// The arithmetic itself is right for any n.
// Expected: not-run
#include "kernels.h"

__global__ void saxpy(int n, float a, const float4* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 4) {
    float4 xv = x[i];
    y[4 * i + 0] = a * xv.x + y[4 * i + 0];
    y[4 * i + 1] = a * xv.y + y[4 * i + 1];
    y[4 * i + 2] = a * xv.z + y[4 * i + 2];
    y[4 * i + 3] = a * xv.w + y[4 * i + 3];
  } else if (i == n / 4) {
    const float* xs = reinterpret_cast<const float*>(x);
    for (int j = 4 * i; j < n; ++j) y[j] = a * xs[j] + y[j];
  }
}

cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {
  saxpy<<<((n + 3) / 4 + 255) / 256, 256>>>(n, a, reinterpret_cast<const float4*>(x), y);
  return cudaGetLastError();
}
