// golden: unroll=1
// The condition written the other way round (`<expr> < v` is a maximum), a const value, the CAS
// compared in the if, and no unroll pragma (unroll=1). The update is kept verbatim both ways.
__global__ void k(int n, const float* x, float* out) {
  float kl_best = -INFINITY;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) kl_best = fmaxf(kl_best, x[i]);
  // one maximum per warp, then per block, then one atomic update per block
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) kl_best = fmaxf(kl_best, __shfl_down_sync(0xffffffffu, kl_best, kl_offset));
  __shared__ float kl_warp_best[32];
  if (threadIdx.x % 32 == 0) kl_warp_best[threadIdx.x / 32] = kl_best;
  __syncthreads();
  if (threadIdx.x < 32) {
    kl_best = threadIdx.x < blockDim.x / 32 ? kl_warp_best[threadIdx.x] : -INFINITY;
    for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) kl_best = fmaxf(kl_best, __shfl_down_sync(0xffffffffu, kl_best, kl_offset));
  }
  if (threadIdx.x == 0) {
    const float v = kl_best;
    int* const addr = (int*)out;
    int old = *addr, assumed;
    while (__int_as_float(old) < v) {
      assumed = old;
      if ((old = atomicCAS(addr, assumed, __float_as_int(v))) == assumed) break;
    }
  }
}
