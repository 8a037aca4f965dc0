// CORRECT: float4 loads and stores with a scalar tail and its own grid ((n + 3) / 4 + 255) / 256:
// thread i < n / 4 handles elements 4i..4i+3, thread n / 4 (present only when n % 4 != 0) the last
// n % 4. The buffers are 256-byte aligned with no offset, so the float4 accesses are aligned.
// Same arithmetic per element as the original, for any n >= 1.
// Expected: accepted
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
  } else if (i == n / 4) {
    for (int j = 4 * i; j < n; ++j) y[j] = a * x[j] + y[j];
  }
}

cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {
  saxpy<<<((n + 3) / 4 + 255) / 256, 256>>>(n, a, x, y);
  return cudaGetLastError();
}
