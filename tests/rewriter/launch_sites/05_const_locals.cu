// shape: const int locals, threads = 256 and blocks = (n + threads - 1) / threads, after an early return
// kernel: add_one
// args: n=12345
// grid: 49 1 1
// block: 256 1 1
// shmem: 0
#include <cuda_runtime.h>

__global__ void add_one(const int* src, int* dst, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i] + 1;
}

void add_one_gpu(const int* src, int* dst, int n) {
  if (n <= 0) return;
  const int threads = 256;
  const int blocks = (n + threads - 1) / threads;
  add_one<<<blocks, threads>>>(src, dst, n);
}
