// WRONG (hostile): returns at once, hoping the output buffer still holds the original's result
// from the run before. The gate poisons every output before every run, so out stays poison.
// Expected: wrong-result
#include "kernels.h"

__global__ void relu(int n, const float* in, float* out) {
  return;
}

cudaError_t launch_relu(int n, const float* in, float* out) {
  relu<<<(n + 255) / 256, 256>>>(n, in, out);
  return cudaGetLastError();
}
