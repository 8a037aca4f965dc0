// WRONG: computes in half precision (cuda_fp16.h): x, y and the result are rounded to 11-bit
// mantissas, a relative error up to ~5e-4, far beyond rtol = 1e-5.
// Expected: wrong-result
#include <cuda_fp16.h>
#include "kernels.h"

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __half2float(__hfma(__float2half(a), __float2half(x[i]), __float2half(y[i])));
}

cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {
  saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);
  return cudaGetLastError();
}
