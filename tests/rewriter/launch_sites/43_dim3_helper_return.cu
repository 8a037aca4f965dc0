// shape: grid and block returned as dim3 by inline helper functions, grid_for(rows, cols) and block_2d()
// kernel: copy_matrix
// args: rows=50 cols=100
// grid: 4 7 1
// block: 32 8 1
// shmem: 0
#include <cuda_runtime.h>

inline dim3 block_2d() { return dim3(32, 8); }
inline dim3 grid_for(int rows, int cols) { return dim3((cols + 31) / 32, (rows + 7) / 8); }

__global__ void copy_matrix(const float* a, float* b, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) b[r * cols + c] = a[r * cols + c];
}

void copy_matrix_gpu(const float* a, float* b, int rows, int cols) {
  copy_matrix<<<grid_for(rows, cols), block_2d()>>>(a, b, rows, cols);
}
