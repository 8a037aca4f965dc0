// shape: grid from a static inline helper that caps with std::min, int grid = num_blocks(n)
// kernel: copy_kernel
// args: n=2000000
// grid: 4096 1 1
// block: 256 1 1
// shmem: 0
#include <algorithm>
#include <cuda_runtime.h>

static inline int num_blocks(int n) { return std::min((n + 255) / 256, 4096); }

__global__ void copy_kernel(const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = x[i];
}

void copy_big(const float* x, float* y, int n) {
  int grid = num_blocks(n);
  copy_kernel<<<grid, 256>>>(x, y, n);
}
