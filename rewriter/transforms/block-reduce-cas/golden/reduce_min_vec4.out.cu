// golden: vector_width=4 unroll=1
// The minimum of |x|, without the pragma: fabsf applied lane by lane.
__global__ void k(int n, const float* x, float* out) {
  float kl_best = INFINITY;
  if ((reinterpret_cast<unsigned long long>(x) & 15) == 0) {
    for (int kl_v = blockIdx.x * blockDim.x + threadIdx.x; kl_v < n / 4; kl_v += blockDim.x * gridDim.x) {
      float4 kl_x4 = reinterpret_cast<const float4*>(x)[kl_v];
      kl_best = fminf(kl_best, fabsf(kl_x4.x));
      kl_best = fminf(kl_best, fabsf(kl_x4.y));
      kl_best = fminf(kl_best, fabsf(kl_x4.z));
      kl_best = fminf(kl_best, fabsf(kl_x4.w));
    }
    for (int i = (n / 4) * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) kl_best = fminf(kl_best, fabsf(x[i]));
  } else {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) kl_best = fminf(kl_best, fabsf(x[i]));
  }
  // one minimum per warp, then per block, then one atomic update per block
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) kl_best = fminf(kl_best, __shfl_down_sync(0xffffffffu, kl_best, kl_offset));
  __shared__ float kl_warp_best[32];
  if (threadIdx.x % 32 == 0) kl_warp_best[threadIdx.x / 32] = kl_best;
  __syncthreads();
  if (threadIdx.x < 32) {
    kl_best = threadIdx.x < blockDim.x / 32 ? kl_warp_best[threadIdx.x] : INFINITY;
    for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) kl_best = fminf(kl_best, __shfl_down_sync(0xffffffffu, kl_best, kl_offset));
  }
  if (threadIdx.x == 0) {
    float v = kl_best;
    int* addr = reinterpret_cast<int*>(out);
    int old = *addr;
    while (v < __int_as_float(old)) {
      int assumed = old;
      old = atomicCAS(addr, assumed, __float_as_int(v));
      if (old == assumed) break;
    }
  }
}
