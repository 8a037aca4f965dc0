// golden: coarsen=8
// double: the 64-bit CAS on the bits of the value, fmax and a double shared array.
__global__ void k(int n, const double* x, double* out) {
  double kl_best = -INFINITY;
  #pragma unroll 4
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) kl_best = fmax(kl_best, x[i] * x[i]);
  // one maximum per warp, then per block, then one atomic update per block
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) kl_best = fmax(kl_best, __shfl_down_sync(0xffffffffu, kl_best, kl_offset));
  __shared__ double kl_warp_best[32];
  if (threadIdx.x % 32 == 0) kl_warp_best[threadIdx.x / 32] = kl_best;
  __syncthreads();
  if (threadIdx.x < 32) {
    kl_best = threadIdx.x < blockDim.x / 32 ? kl_warp_best[threadIdx.x] : -INFINITY;
    for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) kl_best = fmax(kl_best, __shfl_down_sync(0xffffffffu, kl_best, kl_offset));
  }
  if (threadIdx.x == 0) {
    double v = kl_best;
    unsigned long long* addr = reinterpret_cast<unsigned long long*>(out);
    unsigned long long old = *addr;
    while (v > __longlong_as_double(old)) {
      unsigned long long assumed = old;
      old = atomicCAS(addr, assumed, __double_as_longlong(v));
      if (old == assumed) break;
    }
  }
}
