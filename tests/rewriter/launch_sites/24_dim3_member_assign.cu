// shape: default-constructed dim3 filled by member assignments, dim3 tiles; tiles.x = ...; tiles.y = ...;
// kernel: copy2d
// args: width=100 height=50
// refuse: tiles
#include <cuda_runtime.h>

__global__ void copy2d(const float* src, float* dst, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) dst[y * width + x] = src[y * width + x];
}

void copy_image(const float* src, float* dst, int width, int height) {
  dim3 threads(16, 16);
  dim3 tiles;
  tiles.x = (width + 15) / 16;
  tiles.y = (height + 15) / 16;
  copy2d<<<tiles, threads>>>(src, dst, width, height);
}
