// A mineable expert (docs/lineage.md in KLineage): the naive layernorm_rows of src/naive/rows.cu as
// warp-per-row (unroll 4) and row-registers (max_cols 2048, vector_width 4) write it (one warp per
// row, lane-strided loops, warp shuffles; when cols <= 2048, cols % 4 == 0 and the arrays are
// 16-byte aligned, the row read once as float4, 16 per lane, gamma and beta read as float4 and the
// output stored as float4; else the lane-strided loops). Its inverses walk it back to the naive
// kernel: -row-registers (vector_width 4), then -warp-per-row (grid.x / 32). The `mine_experts`
// target; never optimized by KLineage.
#include "mine.h"

__global__ void mine_layernorm_rows(int rows, int cols, float eps, float* in, float* gamma, float* beta, float* out) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (r >= rows) return;
  const float* x = in + (size_t)r * cols;
  float* y = out + (size_t)r * cols;
  float mean = 0.0f;
  #pragma unroll 4
  for (int c = 0 + kl_lane; c < cols; c += 32) mean += x[c];
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) mean += __shfl_xor_sync(0xffffffffu, mean, kl_offset);
  mean /= cols;
  float var = 0.0f;
  #pragma unroll 4
  for (int c = 0 + kl_lane; c < cols; c += 32) var += (x[c] - mean) * (x[c] - mean);
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) var += __shfl_xor_sync(0xffffffffu, var, kl_offset);
  var /= cols;
  float rstd = rsqrtf(var + eps);
  #pragma unroll 4
  for (int c = 0 + kl_lane; c < cols; c += 32) y[c] = (x[c] - mean) * rstd * gamma[c] + beta[c];
}

cudaError_t launch_mine_layernorm_rows(int rows, int cols, float eps, float* in, float* gamma, float* beta,
                                       float* out) {
  mine_layernorm_rows<<<(rows + 7) / 8, 256>>>(rows, cols, eps, in, gamma, beta, out);  // a warp per row
  return cudaGetLastError();
}
