// A mineable expert (docs/lineage.md in KLineage): the naive transpose of src/naive/transpose.cu as
// tile-transpose writes it (a 32 x 33 padded shared-memory tile, 32 x 8 threads, 4 elements per
// thread each way). Its inverse walks it back to the naive kernel: -tile-transpose (block 16 x 16,
// grid * 2 in x and y). The `mine_experts` target; never optimized by KLineage.
#include "mine.h"

__global__ void mine_transpose(int rows, int cols, float* in, float* out) {
  __shared__ float kl_tile[32][33];
  for (int kl_j = 0; kl_j < 32; kl_j += 8) {
    int x = blockIdx.x * 32 + threadIdx.x;  // column of `in`
    int y = blockIdx.y * 32 + threadIdx.y + kl_j;  // row of `in`
    if (x < cols && y < rows) kl_tile[threadIdx.y + kl_j][threadIdx.x] = in[y * cols + x];
  }
  __syncthreads();
  for (int kl_j = 0; kl_j < 32; kl_j += 8) {
    int x = blockIdx.x * 32 + threadIdx.y + kl_j;
    int y = blockIdx.y * 32 + threadIdx.x;
    if (x < cols && y < rows) out[x * rows + y] = kl_tile[threadIdx.x][threadIdx.y + kl_j];
  }
}

cudaError_t launch_mine_transpose(int rows, int cols, float* in, float* out) {
  dim3 grid((cols + 31) / 32, (rows + 31) / 32);  // one 32 x 32 tile per block
  mine_transpose<<<grid, dim3(32, 8)>>>(rows, cols, in, out);
  return cudaGetLastError();
}
