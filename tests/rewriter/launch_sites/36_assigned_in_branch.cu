// shape: grid variable overwritten by a plain assignment in a branch after its declaration, int grid_x = 1; if (n > 256) grid_x = ...;
// kernel: copy_kernel
// args: n=1000
// refuse: grid_x
#include <cuda_runtime.h>

__global__ void copy_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

void copy_branchy(const float* x, float* y, int n) {
  int grid_x = 1;
  if (n > 256) grid_x = (n + 255) / 256;
  copy_kernel<<<grid_x, 256>>>(x, y, n);
}
