// WRONG (hostile): does nothing when n > 2^20, hoping the gate only checks small shapes; at the
// workload's n = 2^22 y keeps its input values.
// Expected: wrong-result
#include "kernels.h"

__global__ void saxpy(int n, float a, const float* x, float* y) {
  if (n > (1 << 20)) return;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {
  saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);
  return cudaGetLastError();
}
