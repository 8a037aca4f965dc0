// shape: unnamed enum constant as block size, enum { kThreads = 512 }
// kernel: square
// args: n=5000
// grid: 10 1 1
// block: 512 1 1
// shmem: 0
#include <cuda_runtime.h>

enum { kThreads = 512 };

__global__ void square(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * x[i];
}

void square_launch(const float* x, float* y, int n) {
  square<<<(n + kThreads - 1) / kThreads, kThreads>>>(x, y, n);
}
