// golden: coarsen=16
__global__ void k(int n, const unsigned int* keys, const int* w, int* bins) {
  __shared__ int kl_bins[1024];
  for (int kl_b = threadIdx.x; kl_b < 1024; kl_b += blockDim.x) kl_bins[kl_b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&kl_bins[keys[i] & 1023u], w[i]);
  __syncthreads();
  for (int kl_b = threadIdx.x; kl_b < 1024; kl_b += blockDim.x)
    if (kl_bins[kl_b] != 0) atomicAdd(&bins[kl_b], kl_bins[kl_b]);
}
