// Naive on purpose: one element per thread on a 16 x 16 block; the loads are coalesced, the stores
// are `rows` floats apart. Never modified by KLineage.
#include "naive.h"

__global__ void transpose(int rows, int cols, const float* in, float* out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;  // column of `in`
  int y = blockIdx.y * blockDim.y + threadIdx.y;  // row of `in`
  if (x < cols && y < rows) out[x * rows + y] = in[y * cols + x];
}

cudaError_t launch_transpose(int rows, int cols, const float* in, float* out) {
  dim3 grid((cols + 15) / 16, (rows + 15) / 16);
  transpose<<<grid, dim3(16, 16)>>>(rows, cols, in, out);
  return cudaGetLastError();
}
