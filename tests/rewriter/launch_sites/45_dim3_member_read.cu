// shape: grid computed by reading a member of an unmodified dim3 local, dim3 blocks(n / threads.x + 1)
// kernel: copy_kernel
// args: n=1000
// grid: 4 1 1
// block: 256 1 1
// shmem: 0
#include <cuda_runtime.h>

__global__ void copy_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

void copy_member_read(const float* x, float* y, int n) {
  dim3 threads(256);
  dim3 blocks(n / threads.x + 1);
  copy_kernel<<<blocks, threads>>>(x, y, n);
}
