// A vectorized kernel (vectorize-access's form): x is read only through float4 loads and the
// tail, and both pointers go through the alignment test; x still gets const.
__global__ void k(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
  if (((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) & 15) == 0) {
    for (int kl_v = blockIdx.x * blockDim.x + threadIdx.x; kl_v < n / 4; kl_v += blockDim.x * gridDim.x) {
      float4 kl_x = reinterpret_cast<const float4*>(x)[kl_v];
      float4 kl_y;
      kl_y.x = a * kl_x.x;
      kl_y.y = a * kl_x.y;
      kl_y.z = a * kl_x.z;
      kl_y.w = a * kl_x.w;
      reinterpret_cast<float4*>(y)[kl_v] = kl_y;
    }
    for (int i = (n / 4) * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = a * x[i];
  } else {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = a * x[i];
  }
}
