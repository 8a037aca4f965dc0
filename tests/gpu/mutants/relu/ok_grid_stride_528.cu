// CORRECT: grid-stride loop with its own fixed grid <<<528, 256>>>: every i < n exactly once for
// any n >= 1 (blocks past the end do nothing at the small probe).
// Expected: accepted
#include "kernels.h"

__global__ void relu(int n, const float* in, float* out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = in[i] > 0.0f ? in[i] : 0.0f;
}

cudaError_t launch_relu(int n, const float* in, float* out) {
  relu<<<528, 256>>>(n, in, out);
  return cudaGetLastError();
}
