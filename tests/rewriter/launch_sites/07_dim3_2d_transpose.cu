// shape: 2-D dim3 locals, dim3 block(16, 16); dim3 grid((cols + 15) / 16, (rows + 15) / 16)
// kernel: transpose_naive
// args: rows=100 cols=37
// grid: 3 7 1
// block: 16 16 1
// shmem: 0
#include <cuda_runtime.h>

__global__ void transpose_naive(const float* in, float* out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}

void transpose(const float* in, float* out, int rows, int cols) {
  dim3 block(16, 16);
  dim3 grid((cols + 15) / 16, (rows + 15) / 16);
  transpose_naive<<<grid, block>>>(in, out, rows, cols);
}
