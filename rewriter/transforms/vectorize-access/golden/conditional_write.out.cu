// y is written on some paths only: it is loaded so unwritten lanes store back what they read.
__global__ void k(const float* x, float* y, float threshold, int n) {
  if (((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) & 15) == 0) {
    for (int kl_v = blockIdx.x * blockDim.x + threadIdx.x; kl_v < n / 4; kl_v += blockDim.x * gridDim.x) {
      float4 kl_x = reinterpret_cast<const float4*>(x)[kl_v];
      float4 kl_y = reinterpret_cast<const float4*>(y)[kl_v];
      {
        if (kl_x.x > threshold) {
          kl_y.x = kl_x.x - threshold;
        }
      }
      {
        if (kl_x.y > threshold) {
          kl_y.y = kl_x.y - threshold;
        }
      }
      {
        if (kl_x.z > threshold) {
          kl_y.z = kl_x.z - threshold;
        }
      }
      {
        if (kl_x.w > threshold) {
          kl_y.w = kl_x.w - threshold;
        }
      }
      reinterpret_cast<float4*>(y)[kl_v] = kl_y;
    }
    for (int i = (n / 4) * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
      if (x[i] > threshold) {
        y[i] = x[i] - threshold;
      }
    }
  } else {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
      if (x[i] > threshold) {
        y[i] = x[i] - threshold;
      }
    }
  }
}
