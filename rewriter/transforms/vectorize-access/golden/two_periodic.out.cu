// Two row-periodic operands with one modulus (a per-column scale and bias): both read as vectors,
// one `cols % 4 == 0` in the condition.
__global__ void k(const float* in, const float* scale, const float* bias, float* out, int n, int cols) {
  if (((reinterpret_cast<unsigned long long>(in) | reinterpret_cast<unsigned long long>(scale) | reinterpret_cast<unsigned long long>(bias) | reinterpret_cast<unsigned long long>(out)) & 15) == 0 && cols % 4 == 0) {
    for (int kl_v = blockIdx.x * blockDim.x + threadIdx.x; kl_v < n / 4; kl_v += blockDim.x * gridDim.x) {
      float4 kl_in = reinterpret_cast<const float4*>(in)[kl_v];
      float4 kl_scale = reinterpret_cast<const float4*>(scale)[(kl_v * 4 % cols) / 4];
      float4 kl_bias = reinterpret_cast<const float4*>(bias)[(kl_v * 4 % cols) / 4];
      float4 kl_out;
      {
        kl_out.x = kl_in.x * kl_scale.x + kl_bias.x;
      }
      {
        kl_out.y = kl_in.y * kl_scale.y + kl_bias.y;
      }
      {
        kl_out.z = kl_in.z * kl_scale.z + kl_bias.z;
      }
      {
        kl_out.w = kl_in.w * kl_scale.w + kl_bias.w;
      }
      reinterpret_cast<float4*>(out)[kl_v] = kl_out;
    }
    for (int i = (n / 4) * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
      out[i] = in[i] * scale[i % cols] + bias[i % cols];
    }
  } else {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
      out[i] = in[i] * scale[i % cols] + bias[i % cols];
    }
  }
}
