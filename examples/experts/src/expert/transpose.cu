// Expert transpose: a 32 x 33 shared-memory tile (the padding column puts the 32 elements of a
// tile column in 32 different banks), 32 x 8 threads each moving 4 elements; loads and stores are
// both coalesced 128-byte rows. Handles any rows x cols (edge tiles are guarded).
#include "experts.h"

namespace {

constexpr int kTile = 32, kRowsPerPass = 8;

__global__ void __launch_bounds__(kTile * kRowsPerPass) transpose_tiled(int rows, int cols, const float* __restrict__ in,
                                                                       float* __restrict__ out) {
  __shared__ float tile[kTile][kTile + 1];
  const int x = blockIdx.x * kTile + threadIdx.x;  // column of in
  const int y0 = blockIdx.y * kTile + threadIdx.y;  // first row of in
#pragma unroll
  for (int j = 0; j < kTile; j += kRowsPerPass) {
    int y = y0 + j;
    if (x < cols && y < rows) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)y * cols + x];
  }
  __syncthreads();
  const int ox = blockIdx.y * kTile + threadIdx.x;  // column of out = row of in
  const int oy0 = blockIdx.x * kTile + threadIdx.y;  // row of out = column of in
#pragma unroll
  for (int j = 0; j < kTile; j += kRowsPerPass) {
    int oy = oy0 + j;
    if (ox < rows && oy < cols) out[(size_t)oy * rows + ox] = tile[threadIdx.x][threadIdx.y + j];
  }
}

}  // namespace

cudaError_t expert_transpose(int rows, int cols, const float* in, float* out) {
  dim3 block(kTile, kRowsPerPass);
  dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
  transpose_tiled<<<grid, block>>>(rows, cols, in, out);
  return cudaGetLastError();
}
