// shape: grid capped with std::min(max_blocks, (n + t - 1) / t), max_blocks a launcher parameter, grid-stride kernel
// kernel: copy_grid_stride
// args: n=1000000
// launcher: max_blocks=1024
// grid: 1024 1 1
// block: 256 1 1
// shmem: 0
#include <algorithm>
#include <cuda_runtime.h>

__global__ void copy_grid_stride(const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = x[i];
}

void copy_capped(const float* x, float* y, int n, int max_blocks) {
  const int t = 256;
  const int blocks = std::min(max_blocks, (n + t - 1) / t);
  copy_grid_stride<<<blocks, t>>>(x, y, n);
}
