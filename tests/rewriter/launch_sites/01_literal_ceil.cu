// shape: literal rounding-up grid and literal block, k<<<(n + 255) / 256, 256>>>
// kernel: copy_kernel
// args: n=1000
// grid: 4 1 1
// block: 256 1 1
// shmem: 0
#include <cuda_runtime.h>

__global__ void copy_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

void launch_copy(const float* x, float* y, int n) {
  copy_kernel<<<(n + 255) / 256, 256>>>(x, y, n);
}
