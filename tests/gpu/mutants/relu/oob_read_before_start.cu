// WRONG: reads in[i - 1], one element before the start for i = 0, and lets it reach the output
// through `+ 0.0f * in[i - 1]` (exact for in-range values, NaN for NaN). The word before in is guard
// pattern, a NaN, so out[0] becomes NaN on every shape. (Added after the comparison: a NaN fed to
// `> 0` would be swallowed.) Nothing is written out of bounds.
// Expected: wrong-result
#include "kernels.h"

__global__ void relu(int n, const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (in[i] > 0.0f ? in[i] : 0.0f) + 0.0f * in[i - 1];
}

cudaError_t launch_relu(int n, const float* in, float* out) {
  relu<<<(n + 255) / 256, 256>>>(n, in, out);
  return cudaGetLastError();
}
