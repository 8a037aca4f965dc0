// The experts' bias_gelu after grid-stride-loop: in and out vectorized, bias[i % cols] (row-periodic)
// read as one float4 per vector, at (kl_v * 4 % cols) / 4, when cols % 4 == 0 and bias is aligned.
__global__ void k(int n, int cols, const float* in, const float* bias, float* out) {
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
