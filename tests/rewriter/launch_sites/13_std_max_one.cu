// shape: grid kept at least one block with std::max(1, n / 128), grid-stride kernel
// kernel: fill_ones
// args: n=50
// grid: 1 1 1
// block: 128 1 1
// shmem: 0
#include <algorithm>
#include <cuda_runtime.h>

__global__ void fill_ones(float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = 1.0f;
}

void fill_ones_launch(float* out, int n) {
  fill_ones<<<std::max(1, n / 128), 128>>>(out, n);
}
