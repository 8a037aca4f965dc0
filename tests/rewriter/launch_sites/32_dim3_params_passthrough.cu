// shape: grid and block are dim3 launcher parameters passed straight through to <<<grid, block>>>
// kernel: copy2d
// args: w=64 h=48
// launcher: grid.x=4 grid.y=3 grid.z=1 block.x=16 block.y=16 block.z=1
// grid: 4 3 1
// block: 16 16 1
// shmem: 0
#include <cuda_runtime.h>

__global__ void copy2d(const float* x, float* y, int w, int h) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (c < w && r < h) y[r * w + c] = x[r * w + c];
}

void launch_copy2d(dim3 grid, dim3 block, const float* x, float* y, int w, int h) {
  copy2d<<<grid, block>>>(x, y, w, h);
}
