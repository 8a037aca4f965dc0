// shape: block size picked by a ternary on the problem size, const int threads = n < 1024 ? 128 : 256
// kernel: copy_kernel
// args: n=5000
// grid: 20 1 1
// block: 256 1 1
// shmem: 0
#include <cuda_runtime.h>

__global__ void copy_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

void copy_adaptive(const float* x, float* y, int n) {
  const int threads = n < 1024 ? 128 : 256;
  const int blocks = (n + threads - 1) / threads;
  copy_kernel<<<blocks, threads>>>(x, y, n);
}
