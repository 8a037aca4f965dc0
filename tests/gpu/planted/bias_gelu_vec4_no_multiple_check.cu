// Planted wrong variant of examples/experts/src/naive/elementwise.cu (bias_gelu): grid-stride-loop,
// then vectorize-access with bias read as one float4 at (kl_v * 4 % cols) / 4, without
// `cols % 4 == 0` in the vector branch's test. Where cols is not a multiple of 4 (the gate's
// cols + 1 and small probes) that float4 is not the four bias values the elements need. The gate
// must reject it (wrong-result).
#include "naive.h"
#include "naive_templates.cuh"

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void relu(int n, const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] > 0.0f ? in[i] : 0.0f;
}

// Bias + activation as in an MLP layer: `in` is rows x cols, the bias is broadcast over rows.
__global__ void bias_gelu(int n, int cols, const float* in, const float* bias, float* out) {
  if (((reinterpret_cast<unsigned long long>(in) | reinterpret_cast<unsigned long long>(bias) | reinterpret_cast<unsigned long long>(out)) & 15) == 0) {
    for (int kl_v = blockIdx.x * blockDim.x + threadIdx.x; kl_v < n / 4; kl_v += blockDim.x * gridDim.x) {
      float4 kl_in = reinterpret_cast<const float4*>(in)[kl_v];
      float4 kl_bias = reinterpret_cast<const float4*>(bias)[(kl_v * 4 % cols) / 4];
      float4 kl_out;
      {
        float v = kl_in.x + kl_bias.x;
        kl_out.x = 0.5f * v * (1.0f + erff(v * 0.70710678f));
      }
      {
        float v = kl_in.y + kl_bias.y;
        kl_out.y = 0.5f * v * (1.0f + erff(v * 0.70710678f));
      }
      {
        float v = kl_in.z + kl_bias.z;
        kl_out.z = 0.5f * v * (1.0f + erff(v * 0.70710678f));
      }
      {
        float v = kl_in.w + kl_bias.w;
        kl_out.w = 0.5f * v * (1.0f + erff(v * 0.70710678f));
      }
      reinterpret_cast<float4*>(out)[kl_v] = kl_out;
    }
    for (int i = (n / 4) * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
      float v = in[i] + bias[i % cols];
      out[i] = 0.5f * v * (1.0f + erff(v * 0.70710678f));
    }
  } else {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
      float v = in[i] + bias[i % cols];
      out[i] = 0.5f * v * (1.0f + erff(v * 0.70710678f));
    }
  }
}

cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {
  saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);
  return cudaGetLastError();
}

cudaError_t launch_relu(int n, const float* in, float* out) {
  relu<<<(n + 255) / 256, 256>>>(n, in, out);
  return cudaGetLastError();
}

cudaError_t launch_bias_gelu(int n, int cols, const float* in, const float* bias, float* out) {
  bias_gelu<<<(n + 255) / 256, 256>>>(n, cols, in, bias, out);
  return cudaGetLastError();
}

cudaError_t launch_scale_add(int n, float a, const float* x, float* y) {
  scale_add<float><<<(n + 255) / 256, 256>>>(n, a, x, y);
  return cudaGetLastError();
}
