// shape: brace-initialized dim3, dim3 block{32, 8}; dim3 grid{(unsigned)((n + 31) / 32), 1}
// kernel: copy_rows8
// args: n=100
// grid: 4 1 1
// block: 32 8 1
// shmem: 0
#include <cuda_runtime.h>

__global__ void copy_rows8(const float* x, float* y, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < n && row < 8) y[row * n + col] = x[row * n + col];
}

void copy_eight_rows(const float* x, float* y, int n) {
  dim3 block{32, 8};
  dim3 grid{(unsigned)((n + 31) / 32), 1};
  copy_rows8<<<grid, block>>>(x, y, n);
}
