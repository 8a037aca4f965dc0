// Expert elementwise kernels: float4 loads and stores in a grid-stride loop sized to the GPU,
// a scalar tail for n % 4.
#include "common.cuh"
#include "experts.h"

namespace {

__global__ void __launch_bounds__(256) saxpy4(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
  const int n4 = n / 4;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  float4* y4 = reinterpret_cast<float4*>(y);
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
    float4 xv = x4[i], yv = y4[i];
    yv.x = fmaf(a, xv.x, yv.x);
    yv.y = fmaf(a, xv.y, yv.y);
    yv.z = fmaf(a, xv.z, yv.z);
    yv.w = fmaf(a, xv.w, yv.w);
    y4[i] = yv;
  }
  for (int i = 4 * n4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = fmaf(a, x[i], y[i]);
}

__device__ __forceinline__ float relu1(float v) { return v > 0.0f ? v : 0.0f; }

__global__ void __launch_bounds__(256) relu4(int n, const float* __restrict__ in, float* __restrict__ out) {
  const int n4 = n / 4;
  const float4* in4 = reinterpret_cast<const float4*>(in);
  float4* out4 = reinterpret_cast<float4*>(out);
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
    float4 v = in4[i];
    out4[i] = make_float4(relu1(v.x), relu1(v.y), relu1(v.z), relu1(v.w));
  }
  for (int i = 4 * n4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = relu1(in[i]);
}

__device__ __forceinline__ float gelu1(float v) { return 0.5f * v * (1.0f + erff(v * 0.70710678f)); }

// cols % 4 == 0: a float4 never straddles two rows, so its bias is bias4[(i % (cols / 4))].
__global__ void __launch_bounds__(256) bias_gelu4(int n, int cols, const float* __restrict__ in,
                                                  const float* __restrict__ bias, float* __restrict__ out) {
  const int n4 = n / 4, cols4 = cols / 4;
  const float4* in4 = reinterpret_cast<const float4*>(in);
  const float4* b4 = reinterpret_cast<const float4*>(bias);
  float4* out4 = reinterpret_cast<float4*>(out);
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
    float4 v = in4[i], b = __ldg(&b4[i % cols4]);
    out4[i] = make_float4(gelu1(v.x + b.x), gelu1(v.y + b.y), gelu1(v.z + b.z), gelu1(v.w + b.w));
  }
  for (int i = 4 * n4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = gelu1(in[i] + bias[i % cols]);
}

__global__ void __launch_bounds__(256) bias_gelu1(int n, int cols, const float* __restrict__ in,
                                                  const float* __restrict__ bias, float* __restrict__ out) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = gelu1(in[i] + __ldg(&bias[i % cols]));
}

}  // namespace

cudaError_t expert_saxpy(int n, float a, const float* x, float* y) {
  saxpy4<<<expert_detail::gridFor(n / 4 + 1, 256), 256>>>(n, a, x, y);
  return cudaGetLastError();
}

cudaError_t expert_relu(int n, const float* in, float* out) {
  relu4<<<expert_detail::gridFor(n / 4 + 1, 256), 256>>>(n, in, out);
  return cudaGetLastError();
}

cudaError_t expert_bias_gelu(int n, int cols, const float* in, const float* bias, float* out) {
  if (cols % 4 == 0)
    bias_gelu4<<<expert_detail::gridFor(n / 4 + 1, 256), 256>>>(n, cols, in, bias, out);
  else
    bias_gelu1<<<expert_detail::gridFor(n, 256), 256>>>(n, cols, in, bias, out);
  return cudaGetLastError();
}
