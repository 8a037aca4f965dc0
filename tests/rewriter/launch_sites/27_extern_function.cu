// shape: grid from a non-inline, non-constexpr function defined in another translation unit (declared only)
// kernel: copy_kernel
// args: n=1000
// refuse: pick_blocks
#include <cuda_runtime.h>

int pick_blocks(int n);

__global__ void copy_kernel(const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = x[i];
}

void copy_tuned(const float* x, float* y, int n) {
  int blocks = pick_blocks(n);
  copy_kernel<<<blocks, 256>>>(x, y, n);
}
