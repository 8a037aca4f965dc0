// shape: launch repeated in a for loop with loop-invariant const geometry
// kernel: copy_kernel
// args: n=777
// launcher: reps=10
// grid: 4 1 1
// block: 256 1 1
// shmem: 0
#include <cuda_runtime.h>

__global__ void copy_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

void bench_copy(const float* x, float* y, int n, int reps) {
  const int b = 256;
  const int g = (n + b - 1) / b;
  for (int i = 0; i < reps; ++i) copy_kernel<<<g, b>>>(x, y, n);
}
