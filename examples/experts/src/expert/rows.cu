// Expert row kernels: one warp per row (8 rows per 256-thread block), warp-shuffle reductions.
// When cols % 128 == 0 and cols <= 2048 the row is loaded once with float4 loads into registers
// (lane l holds float4s l, l + 32, ...; at most 16 per lane); otherwise a scalar fallback streams
// the row from global memory (the re-reads hit L1/L2).
#include <math.h>

#include "experts.h"

namespace {

constexpr int kWarpsPerBlock = 8;
constexpr int kMaxVec = 16;  // float4s per lane in the register path: 16 * 4 * 32 = 2048 columns

__device__ __forceinline__ float warpSum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ __forceinline__ float warpMax(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// Merges the online-softmax pairs (max, sum of exp(x - max)) of the whole warp.
__device__ __forceinline__ void warpMergeOnline(float& m, float& s) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    float m2 = __shfl_xor_sync(0xffffffffu, m, o);
    float s2 = __shfl_xor_sync(0xffffffffu, s, o);
    float mm = fmaxf(m, m2);
    float a = (m == -INFINITY) ? 0.0f : s * expf(m - mm);
    float b = (m2 == -INFINITY) ? 0.0f : s2 * expf(m2 - mm);
    m = mm;
    s = a + b;
  }
}

__global__ void __launch_bounds__(256) softmax_warp_regs(int rows, int cols, const float* __restrict__ in,
                                                         float* __restrict__ out) {
  const int lane = threadIdx.x & 31;
  const int row = blockIdx.x * kWarpsPerBlock + (threadIdx.x >> 5);
  if (row >= rows) return;
  const int v = cols / 128;
  const float4* x = reinterpret_cast<const float4*>(in + (size_t)row * cols);
  float4* y = reinterpret_cast<float4*>(out + (size_t)row * cols);
  float4 r[kMaxVec];
  float m = -INFINITY;
#pragma unroll
  for (int j = 0; j < kMaxVec; ++j)
    if (j < v) {
      r[j] = x[j * 32 + lane];
      m = fmaxf(m, fmaxf(fmaxf(r[j].x, r[j].y), fmaxf(r[j].z, r[j].w)));
    }
  m = warpMax(m);
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < kMaxVec; ++j)
    if (j < v) {
      r[j].x = expf(r[j].x - m);
      r[j].y = expf(r[j].y - m);
      r[j].z = expf(r[j].z - m);
      r[j].w = expf(r[j].w - m);
      s += (r[j].x + r[j].y) + (r[j].z + r[j].w);
    }
  const float inv = 1.0f / warpSum(s);
#pragma unroll
  for (int j = 0; j < kMaxVec; ++j)
    if (j < v) y[j * 32 + lane] = make_float4(r[j].x * inv, r[j].y * inv, r[j].z * inv, r[j].w * inv);
}

// Any cols: one online (max, sum) pass, then a write pass.
__global__ void __launch_bounds__(256) softmax_warp_stream(int rows, int cols, const float* __restrict__ in,
                                                           float* __restrict__ out) {
  const int lane = threadIdx.x & 31;
  const int row = blockIdx.x * kWarpsPerBlock + (threadIdx.x >> 5);
  if (row >= rows) return;
  const float* x = in + (size_t)row * cols;
  float* y = out + (size_t)row * cols;
  float m = -INFINITY, s = 0.0f;
  for (int c = lane; c < cols; c += 32) {
    float v = x[c];
    if (v > m) {
      s = (m == -INFINITY ? 0.0f : s * expf(m - v)) + 1.0f;
      m = v;
    } else {
      s += expf(v - m);
    }
  }
  warpMergeOnline(m, s);
  const float inv = 1.0f / s;
  for (int c = lane; c < cols; c += 32) y[c] = expf(x[c] - m) * inv;
}

__global__ void __launch_bounds__(256) layernorm_warp_regs(int rows, int cols, float eps, const float* __restrict__ in,
                                                           const float* __restrict__ gamma,
                                                           const float* __restrict__ beta, float* __restrict__ out) {
  const int lane = threadIdx.x & 31;
  const int row = blockIdx.x * kWarpsPerBlock + (threadIdx.x >> 5);
  if (row >= rows) return;
  const int v = cols / 128;
  const float4* x = reinterpret_cast<const float4*>(in + (size_t)row * cols);
  const float4* g = reinterpret_cast<const float4*>(gamma);
  const float4* b = reinterpret_cast<const float4*>(beta);
  float4* y = reinterpret_cast<float4*>(out + (size_t)row * cols);
  float4 r[kMaxVec];
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < kMaxVec; ++j)
    if (j < v) {
      r[j] = x[j * 32 + lane];
      s += (r[j].x + r[j].y) + (r[j].z + r[j].w);
    }
  const float mean = warpSum(s) / cols;
  float q = 0.0f;
#pragma unroll
  for (int j = 0; j < kMaxVec; ++j)
    if (j < v) {
      r[j].x -= mean;
      r[j].y -= mean;
      r[j].z -= mean;
      r[j].w -= mean;
      q += (r[j].x * r[j].x + r[j].y * r[j].y) + (r[j].z * r[j].z + r[j].w * r[j].w);
    }
  const float rstd = rsqrtf(warpSum(q) / cols + eps);
#pragma unroll
  for (int j = 0; j < kMaxVec; ++j)
    if (j < v) {
      float4 gg = __ldg(&g[j * 32 + lane]), bb = __ldg(&b[j * 32 + lane]);
      y[j * 32 + lane] = make_float4(fmaf(r[j].x * rstd, gg.x, bb.x), fmaf(r[j].y * rstd, gg.y, bb.y),
                                     fmaf(r[j].z * rstd, gg.z, bb.z), fmaf(r[j].w * rstd, gg.w, bb.w));
    }
}

__global__ void __launch_bounds__(256) layernorm_warp_stream(int rows, int cols, float eps, const float* __restrict__ in,
                                                             const float* __restrict__ gamma,
                                                             const float* __restrict__ beta, float* __restrict__ out) {
  const int lane = threadIdx.x & 31;
  const int row = blockIdx.x * kWarpsPerBlock + (threadIdx.x >> 5);
  if (row >= rows) return;
  const float* x = in + (size_t)row * cols;
  float* y = out + (size_t)row * cols;
  float s = 0.0f;
  for (int c = lane; c < cols; c += 32) s += x[c];
  const float mean = warpSum(s) / cols;
  float q = 0.0f;
  for (int c = lane; c < cols; c += 32) {
    float d = x[c] - mean;
    q += d * d;
  }
  const float rstd = rsqrtf(warpSum(q) / cols + eps);
  for (int c = lane; c < cols; c += 32) y[c] = fmaf((x[c] - mean) * rstd, gamma[c], beta[c]);
}

bool registerPath(int cols) { return cols % 128 == 0 && cols / 128 >= 1 && cols / 128 <= kMaxVec; }

}  // namespace

cudaError_t expert_softmax_rows(int rows, int cols, const float* in, float* out) {
  const int grid = (rows + kWarpsPerBlock - 1) / kWarpsPerBlock;
  if (registerPath(cols))
    softmax_warp_regs<<<grid, 32 * kWarpsPerBlock>>>(rows, cols, in, out);
  else
    softmax_warp_stream<<<grid, 32 * kWarpsPerBlock>>>(rows, cols, in, out);
  return cudaGetLastError();
}

cudaError_t expert_layernorm_rows(int rows, int cols, float eps, const float* in, const float* gamma,
                                  const float* beta, float* out) {
  const int grid = (rows + kWarpsPerBlock - 1) / kWarpsPerBlock;
  if (registerPath(cols))
    layernorm_warp_regs<<<grid, 32 * kWarpsPerBlock>>>(rows, cols, eps, in, gamma, beta, out);
  else
    layernorm_warp_stream<<<grid, 32 * kWarpsPerBlock>>>(rows, cols, eps, in, gamma, beta, out);
  return cudaGetLastError();
}
