// Planted wrong variant of examples/experts/src/naive/rows.cu (softmax_rows): warp-per-row, then
// row-registers, with the register path's sum starting at column 1 (as the max loop does), so each
// row's sum misses exp(x[0] - m). The gate must reject it (wrong-result).
#include "naive.h"

__global__ void softmax_rows(int rows, int cols, const float* in, float* out) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (r >= rows) return;
  const float* x = in + (size_t)r * cols;
  float* y = out + (size_t)r * cols;
  float m = x[0];
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
      if (c >= 1 && c < cols) m = fmaxf(m, kl_row[kl_j]);
    }
  } else for (int c = 1 + kl_lane; c < cols; c += 32) m = fmaxf(m, x[c]);
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, kl_offset));
  float s = 0.0f;
  if (kl_in_regs) {
    #pragma unroll
    for (int kl_j = 0; kl_j < 64; ++kl_j) {
      const int c = kl_j * 32 + kl_lane;
      // planted: the max loop's start (column 1) copied into the sum: x[0]'s term is never added
      if (c >= 1 && c < cols) s += expf(kl_row[kl_j] - m);
    }
  } else for (int c = 0 + kl_lane; c < cols; c += 32) s += expf(x[c] - m);
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, kl_offset);
  if (kl_in_regs) {
    #pragma unroll
    for (int kl_j = 0; kl_j < 64; ++kl_j) {
      const int c = kl_j * 32 + kl_lane;
      if (c >= 0 && c < cols) y[c] = expf(kl_row[kl_j] - m) / s;
    }
  } else for (int c = 0 + kl_lane; c < cols; c += 32) y[c] = expf(x[c] - m) / s;
}

__global__ void layernorm_rows(int rows, int cols, float eps, const float* in, const float* gamma,
                               const float* beta, float* out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* x = in + (size_t)r * cols;
  float* y = out + (size_t)r * cols;
  float mean = 0.0f;
  for (int c = 0; c < cols; ++c) mean += x[c];
  mean /= cols;
  float var = 0.0f;
  for (int c = 0; c < cols; ++c) var += (x[c] - mean) * (x[c] - mean);
  var /= cols;
  float rstd = rsqrtf(var + eps);
  for (int c = 0; c < cols; ++c) y[c] = (x[c] - mean) * rstd * gamma[c] + beta[c];
}

cudaError_t launch_softmax_rows(int rows, int cols, const float* in, float* out) {
  softmax_rows<<<((rows + 255) / 256) * 32, 256>>>(rows, cols, in, out);
  return cudaGetLastError();
}

cudaError_t launch_layernorm_rows(int rows, int cols, float eps, const float* in, const float* gamma,
                                  const float* beta, float* out) {
  layernorm_rows<<<(rows + 255) / 256, 256>>>(rows, cols, eps, in, gamma, beta, out);
  return cudaGetLastError();
}
