// golden: coarsen=16 vector_width=4
// Weighted counts: the keys and the weights are both read as 4-wide vectors, lane by lane.
__global__ void k(int n, const unsigned int* keys, const int* w, int* bins) {
  __shared__ int kl_bins[1024];
  for (int kl_b = threadIdx.x; kl_b < 1024; kl_b += blockDim.x) kl_bins[kl_b] = 0;
  __syncthreads();
  if (((reinterpret_cast<unsigned long long>(keys) | reinterpret_cast<unsigned long long>(w)) & 15) == 0) {
    for (int kl_v = blockIdx.x * blockDim.x + threadIdx.x; kl_v < n / 4; kl_v += blockDim.x * gridDim.x) {
      uint4 kl_keys4 = reinterpret_cast<const uint4*>(keys)[kl_v];
      int4 kl_w4 = reinterpret_cast<const int4*>(w)[kl_v];
      atomicAdd(&kl_bins[kl_keys4.x & 1023u], kl_w4.x);
      atomicAdd(&kl_bins[kl_keys4.y & 1023u], kl_w4.y);
      atomicAdd(&kl_bins[kl_keys4.z & 1023u], kl_w4.z);
      atomicAdd(&kl_bins[kl_keys4.w & 1023u], kl_w4.w);
    }
    for (int i = (n / 4) * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&kl_bins[keys[i] & 1023u], w[i]);
  } else {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&kl_bins[keys[i] & 1023u], w[i]);
  }
  __syncthreads();
  for (int kl_b = threadIdx.x; kl_b < 1024; kl_b += blockDim.x)
    if (kl_bins[kl_b] != 0) atomicAdd(&bins[kl_b], kl_bins[kl_b]);
}
