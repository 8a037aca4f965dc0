// shape: object-like macro block size, #define BLOCK 256, used in grid and block
// kernel: negate
// args: n=70000
// grid: 274 1 1
// block: 256 1 1
// shmem: 0
#include <cuda_runtime.h>

#define BLOCK 256

__global__ void negate(const float* a, float* b, int n) {
  int idx = blockIdx.x * BLOCK + threadIdx.x;
  if (idx < n) b[idx] = -a[idx];
}

void negate_on_gpu(const float* a, float* b, int n) {
  negate<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(a, b, n);
}
