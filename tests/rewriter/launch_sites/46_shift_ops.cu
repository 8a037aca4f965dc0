// shape: power-of-two geometry with shifts, (n + 255) >> 8 blocks of 1 << 8 threads
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

void copy_shift(const float* x, float* y, int n) {
  copy_kernel<<<(n + 255) >> 8, 1 << 8>>>(x, y, n);
}
