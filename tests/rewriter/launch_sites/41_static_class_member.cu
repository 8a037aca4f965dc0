// shape: block size from a static constexpr class member, LaunchCfg::kBlock, grid in a const local
// kernel: copy_kernel
// args: n=1000
// grid: 8 1 1
// block: 128 1 1
// shmem: 0
#include <cuda_runtime.h>

struct LaunchCfg {
  static constexpr int kBlock = 128;
};

__global__ void copy_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

void copy_cfg(const float* x, float* y, int n) {
  const int grid = (n + LaunchCfg::kBlock - 1) / LaunchCfg::kBlock;
  copy_kernel<<<grid, LaunchCfg::kBlock>>>(x, y, n);
}
