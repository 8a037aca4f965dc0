// shape: grid through floating-point math, (int)ceil(n / 256.0)
// kernel: copy_kernel
// args: n=1000
// refuse: ceil
#include <cmath>
#include <cuda_runtime.h>

__global__ void copy_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

void copy_ceil(const float* x, float* y, int n) {
  copy_kernel<<<(int)ceil(n / 256.0), 256>>>(x, y, n);
}
