// shape: auto-typed locals, auto threads = 256; auto blocks = (n + threads - 1) / threads
// kernel: abs_kernel
// args: n=3000
// grid: 12 1 1
// block: 256 1 1
// shmem: 0
#include <cuda_runtime.h>

__global__ void abs_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] < 0.0f ? -x[i] : x[i];
}

void launch_abs(const float* x, float* y, int n) {
  auto threads = 256;
  auto blocks = (n + threads - 1) / threads;
  abs_kernel<<<blocks, threads>>>(x, y, n);
}
