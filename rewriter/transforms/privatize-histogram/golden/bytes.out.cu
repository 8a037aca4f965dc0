__global__ void k(int n, const unsigned char* data, unsigned int* bins) {
  __shared__ unsigned int kl_bins[256];
  for (int kl_b = threadIdx.x; kl_b < 256; kl_b += blockDim.x) kl_bins[kl_b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&kl_bins[data[i]], 1u);
  __syncthreads();
  for (int kl_b = threadIdx.x; kl_b < 256; kl_b += blockDim.x)
    if (kl_bins[kl_b] != 0) atomicAdd(&bins[kl_b], kl_bins[kl_b]);
}
