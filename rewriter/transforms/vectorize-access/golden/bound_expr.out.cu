// A bound that is an expression is hoisted into kl_n; int and unsigned arrays.
__global__ void k(const int* a, const unsigned int* b, unsigned int* c, int rows, int cols) {
  const int kl_n = rows * cols;
  if (((reinterpret_cast<unsigned long long>(a) | reinterpret_cast<unsigned long long>(b) | reinterpret_cast<unsigned long long>(c)) & 15) == 0) {
    for (int kl_v = blockIdx.x * blockDim.x + threadIdx.x; kl_v < kl_n / 4; kl_v += gridDim.x * blockDim.x) {
      int4 kl_a = reinterpret_cast<const int4*>(a)[kl_v];
      uint4 kl_b = reinterpret_cast<const uint4*>(b)[kl_v];
      uint4 kl_c;
      {
        kl_c.x = kl_b.x + (unsigned int)max(kl_a.x, 0);
      }
      {
        kl_c.y = kl_b.y + (unsigned int)max(kl_a.y, 0);
      }
      {
        kl_c.z = kl_b.z + (unsigned int)max(kl_a.z, 0);
      }
      {
        kl_c.w = kl_b.w + (unsigned int)max(kl_a.w, 0);
      }
      reinterpret_cast<uint4*>(c)[kl_v] = kl_c;
    }
    for (int i = (kl_n / 4) * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < kl_n; i += gridDim.x * blockDim.x) {
      c[i] = b[i] + (unsigned int)max(a[i], 0);
    }
  } else {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < rows * cols; i += gridDim.x * blockDim.x) {
      c[i] = b[i] + (unsigned int)max(a[i], 0);
    }
  }
}
