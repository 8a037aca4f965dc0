__global__ void k(int n, const unsigned short* data, unsigned long long* bins) {
  __shared__ unsigned long long kl_bins[100];
  for (int kl_b = threadIdx.x; kl_b < 100; kl_b += blockDim.x) kl_bins[kl_b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&kl_bins[(data[i] % 100u)], 1ull);
  __syncthreads();
  for (int kl_b = threadIdx.x; kl_b < 100; kl_b += blockDim.x)
    if (kl_bins[kl_b] != 0) atomicAdd(&bins[kl_b], kl_bins[kl_b]);
}
