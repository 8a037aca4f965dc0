// A mineable expert (docs/lineage.md in KLineage): the naive bias_gelu of src/naive/elementwise.cu as
// restrict-pointers, grid-stride-loop and vectorize-access write it (float4 loads and stores of in
// and out, bias[i % cols] read as one float4 at (kl_v * 4 % cols) / 4, behind a 16-byte alignment
// check and cols % 4 == 0, a scalar tail, the scalar loop otherwise; grid.x / 4). Its inverses walk
// it back to the naive kernel: -vectorize-access (grid.x * 4), -grid-stride-loop, -restrict-pointers
// (tests/rewriter/test_vectorize_periodic.cpp). The `mine_experts` target; never optimized by
// KLineage.
#include "mine.h"

__global__ void mine_bias_gelu(int n, int cols, const float* __restrict__ in, const float* __restrict__ bias, float* __restrict__ out) {
  if (((reinterpret_cast<unsigned long long>(in) | reinterpret_cast<unsigned long long>(bias) | reinterpret_cast<unsigned long long>(out)) & 15) == 0 && cols % 4 == 0) {
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

// The pointers are not const: -restrict-pointers drops the const it removes __restrict__ with.
cudaError_t launch_mine_bias_gelu(int n, int cols, float* in, float* bias, float* out) {
  mine_bias_gelu<<<(n + 1023) / 1024, 256>>>(n, cols, in, bias, out);  // the naive grid / 4
  return cudaGetLastError();
}
