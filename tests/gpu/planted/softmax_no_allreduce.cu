// Planted wrong variant of examples/experts/src/naive/rows.cu (softmax_rows): warp-per-row without
// the butterfly after the sum, so each lane divides by its own partial sum. The gate must reject it
// (wrong-result).
#include "naive.h"

__global__ void softmax_rows(int rows, int cols, const float* in, float* out) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (r >= rows) return;
  const float* x = in + (size_t)r * cols;
  float* y = out + (size_t)r * cols;
  float m = x[0];
  for (int c = 1 + kl_lane; c < cols; c += 32) m = fmaxf(m, x[c]);
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, kl_offset));
  float s = 0.0f;
  for (int c = 0 + kl_lane; c < cols; c += 32) s += expf(x[c] - m);
  // planted: the lanes' partial sums are never combined, each lane normalizes by its own part
  for (int c = 0 + kl_lane; c < cols; c += 32) y[c] = expf(x[c] - m) / s;
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
