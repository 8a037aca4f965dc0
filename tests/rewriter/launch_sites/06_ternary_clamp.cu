// shape: non-const local never modified, clamped in the launch with a ternary, blocks > 0 ? blocks : 1
// kernel: copy_strided
// args: n=100
// grid: 1 1 1
// block: 256 1 1
// shmem: 0
#include <cuda_runtime.h>

__global__ void copy_strided(const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = x[i];
}

void copy_all(const float* x, float* y, int n) {
  int blocks = n / 256;
  copy_strided<<<blocks > 0 ? blocks : 1, 256>>>(x, y, n);
}
