// bias[i % cols] only in sizeof: never read, so no vector read of bias (it stays as written, per lane).
__global__ void k(int n, int cols, const float* in, const float* bias, float* out) {
  if (((reinterpret_cast<unsigned long long>(in) | reinterpret_cast<unsigned long long>(out)) & 15) == 0) {
    for (int kl_v = blockIdx.x * blockDim.x + threadIdx.x; kl_v < n / 4; kl_v += blockDim.x * gridDim.x) {
      float4 kl_in = reinterpret_cast<const float4*>(in)[kl_v];
      float4 kl_out;
      {
        const int i = kl_v * 4 + 0;
        kl_out.x = kl_in.x * (float)sizeof(bias[i % cols]);
      }
      {
        const int i = kl_v * 4 + 1;
        kl_out.y = kl_in.y * (float)sizeof(bias[i % cols]);
      }
      {
        const int i = kl_v * 4 + 2;
        kl_out.z = kl_in.z * (float)sizeof(bias[i % cols]);
      }
      {
        const int i = kl_v * 4 + 3;
        kl_out.w = kl_in.w * (float)sizeof(bias[i % cols]);
      }
      reinterpret_cast<float4*>(out)[kl_v] = kl_out;
    }
    for (int i = (n / 4) * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
      out[i] = in[i] * (float)sizeof(bias[i % cols]);
    }
  } else {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
      out[i] = in[i] * (float)sizeof(bias[i % cols]);
    }
  }
}
