// out is only written: its vector is not loaded.
__global__ void k(const float* in, float* out, int n) {
  if (((reinterpret_cast<unsigned long long>(in) | reinterpret_cast<unsigned long long>(out)) & 15) == 0) {
    for (int kl_v = blockIdx.x * blockDim.x + threadIdx.x; kl_v < n / 4; kl_v += blockDim.x * gridDim.x) {
      float4 kl_in = reinterpret_cast<const float4*>(in)[kl_v];
      float4 kl_out;
      {
        float v = kl_in.x;
        kl_out.x = fmaxf(v, 0.0f);
      }
      {
        float v = kl_in.y;
        kl_out.y = fmaxf(v, 0.0f);
      }
      {
        float v = kl_in.z;
        kl_out.z = fmaxf(v, 0.0f);
      }
      {
        float v = kl_in.w;
        kl_out.w = fmaxf(v, 0.0f);
      }
      reinterpret_cast<float4*>(out)[kl_v] = kl_out;
    }
    for (int i = (n / 4) * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
      float v = in[i];
      out[i] = fmaxf(v, 0.0f);
    }
  } else {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
      float v = in[i];
      out[i] = fmaxf(v, 0.0f);
    }
  }
}
