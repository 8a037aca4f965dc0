// A 64-bit index (size_t) with an int modulus: i % cols and kl_v * 4 % cols are both computed in
// size_t (cols converted), the vector index too.
#include <cstddef>

__global__ void k(const float* in, const float* bias, float* out, size_t n, int cols) {
  if (((reinterpret_cast<unsigned long long>(in) | reinterpret_cast<unsigned long long>(bias) | reinterpret_cast<unsigned long long>(out)) & 15) == 0 && cols % 4 == 0) {
    for (size_t kl_v = (size_t)blockIdx.x * blockDim.x + threadIdx.x; kl_v < n / 4; kl_v += (size_t)blockDim.x * gridDim.x) {
      float4 kl_in = reinterpret_cast<const float4*>(in)[kl_v];
      float4 kl_bias = reinterpret_cast<const float4*>(bias)[(kl_v * 4 % cols) / 4];
      float4 kl_out;
      {
        kl_out.x = fmaxf(kl_in.x + kl_bias.x, 0.0f);
      }
      {
        kl_out.y = fmaxf(kl_in.y + kl_bias.y, 0.0f);
      }
      {
        kl_out.z = fmaxf(kl_in.z + kl_bias.z, 0.0f);
      }
      {
        kl_out.w = fmaxf(kl_in.w + kl_bias.w, 0.0f);
      }
      reinterpret_cast<float4*>(out)[kl_v] = kl_out;
    }
    for (size_t i = (n / 4) * 4 + (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x) {
      out[i] = fmaxf(in[i] + bias[i % cols], 0.0f);
    }
  } else {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x) {
      out[i] = fmaxf(in[i] + bias[i % cols], 0.0f);
    }
  }
}
