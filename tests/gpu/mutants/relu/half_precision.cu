// WRONG: rounds through half precision (cuda_fp16.h); most positive inputs lose mantissa bits and
// the check is exact (rtol = 0, atol = 0).
// Expected: wrong-result
#include <cuda_fp16.h>
#include "kernels.h"

__global__ void relu(int n, const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    __half h = __float2half(in[i]);
    __half zero = __float2half(0.0f);
    out[i] = __half2float(__hgt(h, zero) ? h : zero);
  }
}

cudaError_t launch_relu(int n, const float* in, float* out) {
  relu<<<(n + 255) / 256, 256>>>(n, in, out);
  return cudaGetLastError();
}
