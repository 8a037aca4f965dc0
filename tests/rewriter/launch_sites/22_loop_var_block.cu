// shape: block-size sweep, the block size is the for-loop variable (modified by tpb *= 2)
// kernel: copy_kernel
// args: n=4096
// refuse: tpb
#include <cuda_runtime.h>

__global__ void copy_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

void sweep_block_sizes(const float* x, float* y, int n) {
  for (int tpb = 32; tpb <= 1024; tpb *= 2) {
    copy_kernel<<<(n + tpb - 1) / tpb, tpb>>>(x, y, n);
    cudaDeviceSynchronize();
  }
}
