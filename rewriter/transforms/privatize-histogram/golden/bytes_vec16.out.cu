// golden: vector_width=16
// Bytes into 256 bins, 16 bytes a thread and iteration (one uint4 load) where the data is aligned.
__global__ void k(int n, const unsigned char* data, unsigned int* bins) {
  __shared__ unsigned int kl_bins[256];
  for (int kl_b = threadIdx.x; kl_b < 256; kl_b += blockDim.x) kl_bins[kl_b] = 0;
  __syncthreads();
  if ((reinterpret_cast<unsigned long long>(data) & 15) == 0) {
    for (int kl_v = blockIdx.x * blockDim.x + threadIdx.x; kl_v < n / 16; kl_v += blockDim.x * gridDim.x) {
      uint4 kl_data16 = reinterpret_cast<const uint4*>(data)[kl_v];
      atomicAdd(&kl_bins[(unsigned char)kl_data16.x], 1u);
      atomicAdd(&kl_bins[(unsigned char)(kl_data16.x >> 8)], 1u);
      atomicAdd(&kl_bins[(unsigned char)(kl_data16.x >> 16)], 1u);
      atomicAdd(&kl_bins[(unsigned char)(kl_data16.x >> 24)], 1u);
      atomicAdd(&kl_bins[(unsigned char)kl_data16.y], 1u);
      atomicAdd(&kl_bins[(unsigned char)(kl_data16.y >> 8)], 1u);
      atomicAdd(&kl_bins[(unsigned char)(kl_data16.y >> 16)], 1u);
      atomicAdd(&kl_bins[(unsigned char)(kl_data16.y >> 24)], 1u);
      atomicAdd(&kl_bins[(unsigned char)kl_data16.z], 1u);
      atomicAdd(&kl_bins[(unsigned char)(kl_data16.z >> 8)], 1u);
      atomicAdd(&kl_bins[(unsigned char)(kl_data16.z >> 16)], 1u);
      atomicAdd(&kl_bins[(unsigned char)(kl_data16.z >> 24)], 1u);
      atomicAdd(&kl_bins[(unsigned char)kl_data16.w], 1u);
      atomicAdd(&kl_bins[(unsigned char)(kl_data16.w >> 8)], 1u);
      atomicAdd(&kl_bins[(unsigned char)(kl_data16.w >> 16)], 1u);
      atomicAdd(&kl_bins[(unsigned char)(kl_data16.w >> 24)], 1u);
    }
    for (int i = (n / 16) * 16 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&kl_bins[data[i]], 1u);
  } else {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&kl_bins[data[i]], 1u);
  }
  __syncthreads();
  for (int kl_b = threadIdx.x; kl_b < 256; kl_b += blockDim.x)
    if (kl_bins[kl_b] != 0) atomicAdd(&bins[kl_b], kl_bins[kl_b]);
}
