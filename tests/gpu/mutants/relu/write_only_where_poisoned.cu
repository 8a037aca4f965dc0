// WRONG: writes an element only where it still holds the 0xFF..FF pattern the gate used to pre-fill
// every write-only output with; in a program the output holds anything, so it returns stale data.
// The outputs' pre-fill differs between input sets (poison, random values, an earlier result).
// Expected: wrong-result
#include "kernels.h"

__global__ void relu(int n, const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && __float_as_uint(out[i]) == 0xFFFFFFFFu) out[i] = in[i] > 0.0f ? in[i] : 0.0f;
}

cudaError_t launch_relu(int n, const float* in, float* out) {
  relu<<<(n + 255) / 256, 256>>>(n, in, out);
  return cudaGetLastError();
}
