// Naive out-of-place transpose: one element per thread on TILE x TILE blocks. The loads are
// coalesced, the stores `rows` floats apart.
#include "launch_sites.h"

#define TILE 16

__global__ void transpose_naive(const float* in, float* out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;  // column of in
  int r = blockIdx.y * blockDim.y + threadIdx.y;  // row of in
  if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}

void transpose(const float* in, float* out, int rows, int cols) {
  dim3 block(TILE, TILE);
  dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
  transpose_naive<<<grid, block>>>(in, out, rows, cols);
}
