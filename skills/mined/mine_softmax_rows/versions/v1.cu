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
  // the row, read once: elements (kl_j * 32 + kl_lane) * 4 + 0..3 in kl_row4[kl_j] (rows of up to 2048)
  float4 kl_row4[16];
  const bool kl_in_regs = cols <= 16 * 128 && cols % 4 == 0 && ((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) & 15) == 0;
  if (kl_in_regs) {
    for (int kl_j = 0; kl_j < 16; ++kl_j) kl_row4[kl_j] = (kl_j * 32 + kl_lane) * 4 < cols ? reinterpret_cast<const float4*>(x)[kl_j * 32 + kl_lane] : make_float4(0, 0, 0, 0);
  }
  if (kl_in_regs) {
    for (int kl_j = 0; kl_j < 16; ++kl_j) {
      const int kl_c = (kl_j * 32 + kl_lane) * 4;
      if (kl_c < cols) {
        if (kl_c + 0 >= 1) m = fmaxf(m, kl_row4[kl_j].x);
        if (kl_c + 1 >= 1) m = fmaxf(m, kl_row4[kl_j].y);
        if (kl_c + 2 >= 1) m = fmaxf(m, kl_row4[kl_j].z);
        if (kl_c + 3 >= 1) m = fmaxf(m, kl_row4[kl_j].w);
      }
    }
  } else
  #pragma unroll 4
  for (int c = 1 + kl_lane; c < cols; c += 32) m = fmaxf(m, x[c]);
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, kl_offset));
  float s = 0.0f;
  if (kl_in_regs) {
    for (int kl_j = 0; kl_j < 16; ++kl_j) {
      const int kl_c = (kl_j * 32 + kl_lane) * 4;
      if (kl_c < cols) {
        kl_row4[kl_j].x = expf(kl_row4[kl_j].x - m);
        s += kl_row4[kl_j].x;
        kl_row4[kl_j].y = expf(kl_row4[kl_j].y - m);
        s += kl_row4[kl_j].y;
        kl_row4[kl_j].z = expf(kl_row4[kl_j].z - m);
        s += kl_row4[kl_j].z;
        kl_row4[kl_j].w = expf(kl_row4[kl_j].w - m);
        s += kl_row4[kl_j].w;
      }
    }
  } else
  #pragma unroll 4
  for (int c = 0 + kl_lane; c < cols; c += 32) s += expf(x[c] - m);
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, kl_offset);
  if (kl_in_regs) {
    for (int kl_j = 0; kl_j < 16; ++kl_j) {
      const int kl_c = (kl_j * 32 + kl_lane) * 4;
      if (kl_c < cols) {
        float4 kl_v;
        kl_v.x = kl_row4[kl_j].x / s;
        kl_v.y = kl_row4[kl_j].y / s;
        kl_v.z = kl_row4[kl_j].z / s;
        kl_v.w = kl_row4[kl_j].w / s;
        reinterpret_cast<float4*>(y)[kl_j * 32 + kl_lane] = kl_v;
      }
    }
  } else
  #pragma unroll 4
  for (int c = 0 + kl_lane; c < cols; c += 32) y[c] = expf(x[c] - m) / s;
}

cudaError_t launch_mine_softmax_rows(int rows, int cols, float* in, float* out) {
  mine_softmax_rows<<<(rows + 7) / 8, 256>>>(rows, cols, in, out);  // one warp per row: 8 rows per block
  return cudaGetLastError();
}
