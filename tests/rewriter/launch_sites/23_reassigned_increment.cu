// shape: grid variable incremented after its declaration, int nblocks = n / 256; if (n % 256) nblocks++;
// kernel: copy_kernel
// args: n=1000
// refuse: nblocks
#include <cuda_runtime.h>

__global__ void copy_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

void copy_rounded(const float* x, float* y, int n) {
  int nblocks = n / 256;
  if (n % 256) nblocks++;
  copy_kernel<<<nblocks, 256>>>(x, y, n);
}
