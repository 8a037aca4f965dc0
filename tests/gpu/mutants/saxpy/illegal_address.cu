// WRONG: the thread of element n / 2 stores through a wild pointer (address 16, held in a volatile
// so the compiler cannot see it): an illegal memory access that aborts the kernel on every shape.
// Expected: runtime-failed
#include "kernels.h"

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
  if (i == n / 2) {
    volatile unsigned long long wild = 16;
    *reinterpret_cast<float*>(wild) = 1.0f;
  }
}

cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {
  saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);
  return cudaGetLastError();
}
