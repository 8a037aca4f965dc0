// The modulus is assigned in the kernel: bias[i % c] stays a scalar gather per lane (in and out are
// still vectors).
__global__ void k(int n, int cols, const float* in, const float* bias, float* out) {
  int c = cols;
  if (c < 1) c = 1;
  if (((reinterpret_cast<unsigned long long>(in) | reinterpret_cast<unsigned long long>(out)) & 15) == 0) {
    for (int kl_v = blockIdx.x * blockDim.x + threadIdx.x; kl_v < n / 4; kl_v += blockDim.x * gridDim.x) {
      float4 kl_in = reinterpret_cast<const float4*>(in)[kl_v];
      float4 kl_out;
      {
        const int i = kl_v * 4 + 0;
        kl_out.x = kl_in.x + bias[i % c];
      }
      {
        const int i = kl_v * 4 + 1;
        kl_out.y = kl_in.y + bias[i % c];
      }
      {
        const int i = kl_v * 4 + 2;
        kl_out.z = kl_in.z + bias[i % c];
      }
      {
        const int i = kl_v * 4 + 3;
        kl_out.w = kl_in.w + bias[i % c];
      }
      reinterpret_cast<float4*>(out)[kl_v] = kl_out;
    }
    for (int i = (n / 4) * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
      out[i] = in[i] + bias[i % c];
    }
  } else {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
      out[i] = in[i] + bias[i % c];
    }
  }
}
