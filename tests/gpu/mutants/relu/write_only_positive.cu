// WRONG: writes out[i] only where in[i] > 0 (assuming out was zeroed beforehand); the other
// elements keep the poison the gate fills outputs with.
// Expected: wrong-result
#include "kernels.h"

__global__ void relu(int n, const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] > 0.0f) out[i] = in[i];
}

cudaError_t launch_relu(int n, const float* in, float* out) {
  relu<<<(n + 255) / 256, 256>>>(n, in, out);
  return cudaGetLastError();
}
