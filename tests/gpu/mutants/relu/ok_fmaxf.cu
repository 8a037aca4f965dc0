// CORRECT: fmaxf(in[i], 0). Equal to the original for every non-NaN input (uniform(-1, 1) has no
// NaN; for -0.0 either zero may come out, and -0.0 equals 0.0 in the gate's comparison).
// Expected: accepted
#include "kernels.h"

__global__ void relu(int n, const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fmaxf(in[i], 0.0f);
}

cudaError_t launch_relu(int n, const float* in, float* out) {
  relu<<<(n + 255) / 256, 256>>>(n, in, out);
  return cudaGetLastError();
}
