// WRONG (hostile): out is right, but the kernel also applies relu in place to in, an input buffer
// the original leaves unchanged (every negative in[i] becomes 0).
// Expected: wrong-result
#include "kernels.h"

__global__ void relu(int n, const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float r = in[i] > 0.0f ? in[i] : 0.0f;
    out[i] = r;
    const_cast<float*>(in)[i] = r;
  }
}

cudaError_t launch_relu(int n, const float* in, float* out) {
  relu<<<(n + 255) / 256, 256>>>(n, in, out);
  return cudaGetLastError();
}
