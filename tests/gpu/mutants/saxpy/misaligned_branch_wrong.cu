// WRONG: vectorize-access's form (a 16-byte alignment test, float4 loop, scalar tail) whose branch
// for misaligned pointers has a sign error. The workload's buffers are 256-byte aligned, so only the
// gate's misaligned probe (every pointer 4 bytes past a 16-byte boundary, added because the variant
// tests alignment and the original does not) runs that branch.
// Expected: wrong-result
#include "kernels.h"

__global__ void saxpy(int n, float a, const float* x, float* y) {
  if (((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) & 15) == 0) {
    for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n / 4; v += blockDim.x * gridDim.x) {
      float4 xv = reinterpret_cast<const float4*>(x)[v];
      float4 yv = reinterpret_cast<const float4*>(y)[v];
      yv.x = a * xv.x + yv.x;
      yv.y = a * xv.y + yv.y;
      yv.z = a * xv.z + yv.z;
      yv.w = a * xv.w + yv.w;
      reinterpret_cast<float4*>(y)[v] = yv;
    }
    for (int i = (n / 4) * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
      y[i] = a * x[i] + y[i];
  } else {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = a * x[i] - y[i];
  }
}

cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {
  saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);
  return cudaGetLastError();
}
