// A mineable expert (docs/lineage.md in KLineage): the naive layernorm_rows of src/naive/rows.cu as
// warp-per-row (unroll 4) and row-registers write it (one warp per row, lane-strided loops, warp
// shuffles; the row read once into 64 registers per lane when cols <= 2048). Its inverses walk it
// back to the naive kernel: -row-registers, then -warp-per-row (grid.x / 32). The `mine_experts`
// target; never optimized by KLineage.
#include "mine.h"

__global__ void mine_layernorm_rows(int rows, int cols, float eps, float* in, float* gamma, float* beta, float* out) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (r >= rows) return;
  const float* x = in + (size_t)r * cols;
  float* y = out + (size_t)r * cols;
  float mean = 0.0f;
  // the row, read once: element kl_j * 32 + kl_lane in kl_row[kl_j] (rows of up to 2048)
  float kl_row[64];
  const bool kl_in_regs = cols <= 64 * 32;
  if (kl_in_regs) {
    #pragma unroll
    for (int kl_j = 0; kl_j < 64; ++kl_j) kl_row[kl_j] = kl_j * 32 + kl_lane < cols ? x[kl_j * 32 + kl_lane] : float(0);
  }
  if (kl_in_regs) {
    #pragma unroll
    for (int kl_j = 0; kl_j < 64; ++kl_j) {
      const int c = kl_j * 32 + kl_lane;
      if (c >= 0 && c < cols) mean += kl_row[kl_j];
    }
  } else
  #pragma unroll 4
  for (int c = 0 + kl_lane; c < cols; c += 32) mean += x[c];
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) mean += __shfl_xor_sync(0xffffffffu, mean, kl_offset);
  mean /= cols;
  float var = 0.0f;
  if (kl_in_regs) {
    #pragma unroll
    for (int kl_j = 0; kl_j < 64; ++kl_j) {
      const int c = kl_j * 32 + kl_lane;
      if (c >= 0 && c < cols) var += (kl_row[kl_j] - mean) * (kl_row[kl_j] - mean);
    }
  } else
  #pragma unroll 4
  for (int c = 0 + kl_lane; c < cols; c += 32) var += (x[c] - mean) * (x[c] - mean);
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) var += __shfl_xor_sync(0xffffffffu, var, kl_offset);
  var /= cols;
  float rstd = rsqrtf(var + eps);
  if (kl_in_regs) {
    #pragma unroll
    for (int kl_j = 0; kl_j < 64; ++kl_j) {
      const int c = kl_j * 32 + kl_lane;
      if (c >= 0 && c < cols) y[c] = (kl_row[kl_j] - mean) * rstd * gamma[c] + beta[c];
    }
  } else
  #pragma unroll 4
  for (int c = 0 + kl_lane; c < cols; c += 32) y[c] = (x[c] - mean) * rstd * gamma[c] + beta[c];
}

cudaError_t launch_mine_layernorm_rows(int rows, int cols, float eps, float* in, float* gamma, float* beta,
                                       float* out) {
  mine_layernorm_rows<<<(rows + 7) / 8, 256>>>(rows, cols, eps, in, gamma, beta, out);  // a warp per row
  return cudaGetLastError();
}
