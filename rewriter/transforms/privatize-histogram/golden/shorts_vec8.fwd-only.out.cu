// golden: vector_width=8
// 2-byte keys: 8 a vector, each shifted out of its 32-bit word.
__global__ void k(int n, const unsigned short* data, unsigned long long* bins) {
  __shared__ unsigned long long kl_bins[100];
  for (int kl_b = threadIdx.x; kl_b < 100; kl_b += blockDim.x) kl_bins[kl_b] = 0;
  __syncthreads();
  if ((reinterpret_cast<unsigned long long>(data) & 15) == 0) {
    for (int kl_v = blockIdx.x * blockDim.x + threadIdx.x; kl_v < n / 8; kl_v += blockDim.x * gridDim.x) {
      uint4 kl_data8 = reinterpret_cast<const uint4*>(data)[kl_v];
      atomicAdd(&kl_bins[((unsigned short)kl_data8.x % 100u)], 1ull);
      atomicAdd(&kl_bins[((unsigned short)(kl_data8.x >> 16) % 100u)], 1ull);
      atomicAdd(&kl_bins[((unsigned short)kl_data8.y % 100u)], 1ull);
      atomicAdd(&kl_bins[((unsigned short)(kl_data8.y >> 16) % 100u)], 1ull);
      atomicAdd(&kl_bins[((unsigned short)kl_data8.z % 100u)], 1ull);
      atomicAdd(&kl_bins[((unsigned short)(kl_data8.z >> 16) % 100u)], 1ull);
      atomicAdd(&kl_bins[((unsigned short)kl_data8.w % 100u)], 1ull);
      atomicAdd(&kl_bins[((unsigned short)(kl_data8.w >> 16) % 100u)], 1ull);
    }
    for (int i = (n / 8) * 8 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&kl_bins[(data[i] % 100u)], 1ull);
  } else {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&kl_bins[(data[i] % 100u)], 1ull);
  }
  __syncthreads();
  for (int kl_b = threadIdx.x; kl_b < 100; kl_b += blockDim.x)
    if (kl_bins[kl_b] != 0) atomicAdd(&bins[kl_b], kl_bins[kl_b]);
}
