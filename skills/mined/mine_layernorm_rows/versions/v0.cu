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
  // the row, read once: elements (kl_j * 32 + kl_lane) * 4 + 0..3 in kl_row4[kl_j] (rows of up to 2048)
  float4 kl_row4[16];
  const bool kl_in_regs = cols <= 16 * 128 && cols % 4 == 0 && ((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y) | reinterpret_cast<unsigned long long>(gamma) | reinterpret_cast<unsigned long long>(beta)) & 15) == 0;
  if (kl_in_regs) {
    #pragma unroll
    for (int kl_j = 0; kl_j < 16; ++kl_j) kl_row4[kl_j] = (kl_j * 32 + kl_lane) * 4 < cols ? reinterpret_cast<const float4*>(x)[kl_j * 32 + kl_lane] : make_float4(0, 0, 0, 0);
  }
  if (kl_in_regs) {
    #pragma unroll
    for (int kl_j = 0; kl_j < 16; ++kl_j) {
      const int kl_c = (kl_j * 32 + kl_lane) * 4;
      if (kl_c < cols) {
        mean += kl_row4[kl_j].x;
        mean += kl_row4[kl_j].y;
        mean += kl_row4[kl_j].z;
        mean += kl_row4[kl_j].w;
      }
    }
  } else
  #pragma unroll 4
  for (int c = 0 + kl_lane; c < cols; c += 32) mean += x[c];
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) mean += __shfl_xor_sync(0xffffffffu, mean, kl_offset);
  mean /= cols;
  float var = 0.0f;
  if (kl_in_regs) {
    #pragma unroll
    for (int kl_j = 0; kl_j < 16; ++kl_j) {
      const int kl_c = (kl_j * 32 + kl_lane) * 4;
      if (kl_c < cols) {
        var += (kl_row4[kl_j].x - mean) * (kl_row4[kl_j].x - mean);
        var += (kl_row4[kl_j].y - mean) * (kl_row4[kl_j].y - mean);
        var += (kl_row4[kl_j].z - mean) * (kl_row4[kl_j].z - mean);
        var += (kl_row4[kl_j].w - mean) * (kl_row4[kl_j].w - mean);
      }
    }
  } else
  #pragma unroll 4
  for (int c = 0 + kl_lane; c < cols; c += 32) var += (x[c] - mean) * (x[c] - mean);
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) var += __shfl_xor_sync(0xffffffffu, var, kl_offset);
  var /= cols;
  float rstd = rsqrtf(var + eps);
  if (kl_in_regs) {
    #pragma unroll
    for (int kl_j = 0; kl_j < 16; ++kl_j) {
      const int kl_c = (kl_j * 32 + kl_lane) * 4;
      if (kl_c < cols) {
        const float4 kl_gamma_4 = reinterpret_cast<const float4*>(gamma)[kl_j * 32 + kl_lane];
        const float4 kl_beta_4 = reinterpret_cast<const float4*>(beta)[kl_j * 32 + kl_lane];
        float4 kl_v;
        kl_v.x = (kl_row4[kl_j].x - mean) * rstd * kl_gamma_4.x + kl_beta_4.x;
        kl_v.y = (kl_row4[kl_j].y - mean) * rstd * kl_gamma_4.y + kl_beta_4.y;
        kl_v.z = (kl_row4[kl_j].z - mean) * rstd * kl_gamma_4.z + kl_beta_4.z;
        kl_v.w = (kl_row4[kl_j].w - mean) * rstd * kl_gamma_4.w + kl_beta_4.w;
        reinterpret_cast<float4*>(y)[kl_j * 32 + kl_lane] = kl_v;
      }
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
