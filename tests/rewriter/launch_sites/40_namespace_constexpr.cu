// shape: block size from a constexpr in a named namespace, qualified as cfg::kThreads
// kernel: copy_kernel
// args: n=1000
// grid: 16 1 1
// block: 64 1 1
// shmem: 0
#include <cuda_runtime.h>

namespace cfg {
constexpr int kThreads = 64;
}

__global__ void copy_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

void copy_ns(const float* x, float* y, int n) {
  copy_kernel<<<(n + cfg::kThreads - 1) / cfg::kThreads, cfg::kThreads>>>(x, y, n);
}
