// x is read at i + 1 too: a gather (x is never stored to), read per lane with the lane's own i.
__global__ void k(const float* x, float* y, int n) {
  if (((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) & 15) == 0) {
    for (int kl_v = blockIdx.x * blockDim.x + threadIdx.x; kl_v < n / 4; kl_v += blockDim.x * gridDim.x) {
      float4 kl_x = reinterpret_cast<const float4*>(x)[kl_v];
      float4 kl_y;
      {
        const int i = kl_v * 4 + 0;
        kl_y.x = x[i + 1] - kl_x.x;
      }
      {
        const int i = kl_v * 4 + 1;
        kl_y.y = x[i + 1] - kl_x.y;
      }
      {
        const int i = kl_v * 4 + 2;
        kl_y.z = x[i + 1] - kl_x.z;
      }
      {
        const int i = kl_v * 4 + 3;
        kl_y.w = x[i + 1] - kl_x.w;
      }
      reinterpret_cast<float4*>(y)[kl_v] = kl_y;
    }
    for (int i = (n / 4) * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
      y[i] = x[i + 1] - x[i];
    }
  } else {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
      y[i] = x[i + 1] - x[i];
    }
  }
}
