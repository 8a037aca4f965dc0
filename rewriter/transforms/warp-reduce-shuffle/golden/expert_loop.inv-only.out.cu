// golden: block_size=128
// The warp's 32 values combined through shared memory (KLineage's de-shuffled form of a
// warp reduction: every lane gets the result).
template <typename T>
__device__ __forceinline__ T kl_warp_tree_sum(T v) {
  __shared__ T kl_red[1024];
  const unsigned kl_t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned kl_lane = kl_t % 32u;
  kl_red[kl_t] = v;
  __syncwarp();
  for (unsigned kl_o = 16; kl_o > 0; kl_o >>= 1) {
    if (kl_lane < kl_o) kl_red[kl_t] = kl_red[kl_t] + kl_red[kl_t + kl_o];
    __syncwarp();
  }
  v = kl_red[kl_t - kl_lane];
  __syncwarp();
  return v;
}

template <int kBlock>
__global__ void k(const double* __restrict__ a, const double* __restrict__ b, double* dot, int n) {
  double acc = 0.0;
  for (int i = blockIdx.x * kBlock + threadIdx.x; i < n; i += kBlock * gridDim.x) acc += a[i] * b[i];
  acc = kl_warp_tree_sum(acc);
  if (threadIdx.x % 32 == 0) atomicAdd(dot, acc);
}

template __global__ void k<128>(const double*, const double*, double*, int);
