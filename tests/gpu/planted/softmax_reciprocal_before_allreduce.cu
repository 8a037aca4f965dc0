// Planted wrong variant of examples/experts/src/naive/rows.cu (softmax_rows): warp-per-row-unrolled,
// row-registers-vec4, then reciprocal-multiply with its reciprocal hoisted past a write of the
// divisor: 1 / s is taken before the warp butterfly adds the other lanes' partial sums, so every
// lane divides by its own part of the row's sum. The transform refuses this (the divisor must only
// be read in the statement it rewrites); the gate must reject it (wrong-result).
#include "naive.h"

__global__ void softmax_rows(int rows, int cols, const float* in, float* out) {
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
    #pragma unroll
    for (int kl_j = 0; kl_j < 16; ++kl_j) kl_row4[kl_j] = (kl_j * 32 + kl_lane) * 4 < cols ? reinterpret_cast<const float4*>(x)[kl_j * 32 + kl_lane] : make_float4(0, 0, 0, 0);
  }
  if (kl_in_regs) {
    #pragma unroll
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
    #pragma unroll
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
  // planted: the reciprocal of the lane's own partial sum, taken before the butterfly sums the row
  const float kl_rcp_s = 1.0f / s;
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, kl_offset);
  if (fabsf(s) >= 1.17549435e-38f && fabsf(s) <= 8.50705917e+37f) {
    if (kl_in_regs) {
      #pragma unroll
      for (int kl_j = 0; kl_j < 16; ++kl_j) {
        const int kl_c = (kl_j * 32 + kl_lane) * 4;
        if (kl_c < cols) {
          float4 kl_v;
          kl_v.x = kl_row4[kl_j].x * kl_rcp_s;
          kl_v.y = kl_row4[kl_j].y * kl_rcp_s;
          kl_v.z = kl_row4[kl_j].z * kl_rcp_s;
          kl_v.w = kl_row4[kl_j].w * kl_rcp_s;
          reinterpret_cast<float4*>(y)[kl_j * 32 + kl_lane] = kl_v;
        }
      }
    } else
    #pragma unroll 4
    for (int c = 0 + kl_lane; c < cols; c += 32) y[c] = expf(x[c] - m) * kl_rcp_s;
  } else {
    if (kl_in_regs) {
      #pragma unroll
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
