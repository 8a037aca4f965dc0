// WRONG: packs the element index above an 11-bit lane tag in one 32-bit word and unpacks it with
// a shift; the packed value wraps once the index reaches 2^21, so threads 2^21 .. n - 1 redo
// elements 0 .. n - 2^21 - 1 (same values) and out[2^21 ..] stays poison at n = 2^22. Unsigned
// arithmetic, so the wrap is defined and cannot be optimized away.
// Expected: wrong-result
#include "kernels.h"

__global__ void relu(int n, const float* in, float* out) {
  unsigned packed = ((blockIdx.x * blockDim.x + threadIdx.x) << 11) | (threadIdx.x & 0x7FFu);
  int i = static_cast<int>(packed >> 11);
  if (i < n) out[i] = in[i] > 0.0f ? in[i] : 0.0f;
}

cudaError_t launch_relu(int n, const float* in, float* out) {
  relu<<<(n + 255) / 256, 256>>>(n, in, out);
  return cudaGetLastError();
}
