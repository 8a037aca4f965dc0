// WRONG: float4-vectorized with its own grid ((n / 4) + 255) / 256 but no scalar tail: the last
// n % 4 elements are never updated. At n = 2^22 (a multiple of 4) every element is covered; on the
// n + 1 probe (and a small n that is not a multiple of 4) y[n-1] keeps its input value.
// Expected: wrong-result
#include "kernels.h"

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 4) {
    float4 xv = reinterpret_cast<const float4*>(x)[i];
    float4 yv = reinterpret_cast<float4*>(y)[i];
    yv.x = a * xv.x + yv.x;
    yv.y = a * xv.y + yv.y;
    yv.z = a * xv.z + yv.z;
    yv.w = a * xv.w + yv.w;
    reinterpret_cast<float4*>(y)[i] = yv;
  }
}

cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {
  saxpy<<<((n / 4) + 255) / 256, 256>>>(n, a, x, y);
  return cudaGetLastError();
}
