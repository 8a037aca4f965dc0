// Naive on purpose: one element per thread, scalar loads, a literal block size of 256. KLineage
// rewrites these kernels and their launches in the build tree; this file is never modified.
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
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = in[i] + bias[i % cols];
    out[i] = 0.5f * v * (1.0f + erff(v * 0.70710678f));
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
