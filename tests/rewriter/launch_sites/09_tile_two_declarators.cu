// shape: two dim3 declarators in one declaration with #define'd tile sizes, dim3 grid(size_x / TILE_DIM, size_y / TILE_DIM), threads(TILE_DIM, BLOCK_ROWS)
// kernel: transpose_tiled
// args: size_x=1000 size_y=96
// grid: 31 3 1
// block: 32 8 1
// shmem: 0
#include <cuda_runtime.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transpose_tiled(float* odata, const float* idata, int size_x, int size_y) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < size_x && y + j < size_y) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * size_x + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < size_y && y + j < size_x) odata[(y + j) * size_y + x] = tile[threadIdx.x][threadIdx.y + j];
}

void transpose_matrix(float* out, const float* in, int size_x, int size_y) {
  dim3 grid(size_x / TILE_DIM, size_y / TILE_DIM), threads(TILE_DIM, BLOCK_ROWS);
  transpose_tiled<<<grid, threads>>>(out, in, size_x, size_y);
}
