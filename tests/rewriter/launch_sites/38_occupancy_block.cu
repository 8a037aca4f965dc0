// shape: block size chosen at run time by cudaOccupancyMaxPotentialBlockSize (written through a pointer)
// kernel: copy_kernel
// args: n=100000
// refuse: occ_block
#include <cuda_runtime.h>

__global__ void copy_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

void copy_occupancy(const float* x, float* y, int n) {
  int min_grid = 0;
  int occ_block = 0;
  cudaOccupancyMaxPotentialBlockSize(&min_grid, &occ_block, copy_kernel, 0, 0);
  int grid = (n + occ_block - 1) / occ_block;
  copy_kernel<<<grid, occ_block>>>(x, y, n);
}
