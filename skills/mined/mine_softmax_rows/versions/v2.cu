// A mineable expert (docs/lineage.md in KLineage): the naive softmax_rows of src/naive/rows.cu as
// warp-per-row (unroll 4) and row-registers (max_cols 2048, vector_width 4) write it (one warp per
// row, lane-strided loops, warp shuffles; when cols <= 2048, cols % 4 == 0 and the arrays are
// 16-byte aligned, the row read once as float4, 16 per lane, expf(x - m) computed once into the
// row's registers, and the output stored as float4; else the lane-strided loops). Its inverses
// walk it back to the naive kernel: -row-registers (vector_width 4), then -warp-per-row
// (grid.x / 32). The `mine_experts` target; never optimized by KLineage.
#include "mine.h"

__global__ void mine_softmax_rows(int rows, int cols, float* in, float* out) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (r >= rows) return;
  const float* x = in + (size_t)r * cols;
  float* y = out + (size_t)r * cols;
  float m = x[0];
  #pragma unroll 4
  for (int c = 1 + kl_lane; c < cols; c += 32) m = fmaxf(m, x[c]);
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, kl_offset));
  float s = 0.0f;
  #pragma unroll 4
  for (int c = 0 + kl_lane; c < cols; c += 32) s += expf(x[c] - m);
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, kl_offset);
  #pragma unroll 4
  for (int c = 0 + kl_lane; c < cols; c += 32) y[c] = expf(x[c] - m) / s;
}

cudaError_t launch_mine_softmax_rows(int rows, int cols, float* in, float* out) {
  mine_softmax_rows<<<(rows + 7) / 8, 256>>>(rows, cols, in, out);  // one warp per row: 8 rows per block
  return cudaGetLastError();
}
