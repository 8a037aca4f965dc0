// golden: vector_width=16
// The textbook grid-stride histogram (its launcher sized the grid): the grid is kept, the loads widen.
__global__ void k(const unsigned char* buffer, long size, unsigned int* histo)
{
  __shared__ unsigned int kl_bins[256];
  for (int kl_b = threadIdx.x; kl_b < 256; kl_b += blockDim.x) kl_bins[kl_b] = 0;
  __syncthreads();
  if ((reinterpret_cast<unsigned long long>(buffer) & 15) == 0) {
    for (long kl_v = threadIdx.x + (long)blockIdx.x * blockDim.x; kl_v < size / 16; kl_v += (long)blockDim.x * gridDim.x) {
      uint4 kl_buffer16 = reinterpret_cast<const uint4*>(buffer)[kl_v];
      atomicAdd(&kl_bins[(unsigned char)kl_buffer16.x], 1);
      atomicAdd(&kl_bins[(unsigned char)(kl_buffer16.x >> 8)], 1);
      atomicAdd(&kl_bins[(unsigned char)(kl_buffer16.x >> 16)], 1);
      atomicAdd(&kl_bins[(unsigned char)(kl_buffer16.x >> 24)], 1);
      atomicAdd(&kl_bins[(unsigned char)kl_buffer16.y], 1);
      atomicAdd(&kl_bins[(unsigned char)(kl_buffer16.y >> 8)], 1);
      atomicAdd(&kl_bins[(unsigned char)(kl_buffer16.y >> 16)], 1);
      atomicAdd(&kl_bins[(unsigned char)(kl_buffer16.y >> 24)], 1);
      atomicAdd(&kl_bins[(unsigned char)kl_buffer16.z], 1);
      atomicAdd(&kl_bins[(unsigned char)(kl_buffer16.z >> 8)], 1);
      atomicAdd(&kl_bins[(unsigned char)(kl_buffer16.z >> 16)], 1);
      atomicAdd(&kl_bins[(unsigned char)(kl_buffer16.z >> 24)], 1);
      atomicAdd(&kl_bins[(unsigned char)kl_buffer16.w], 1);
      atomicAdd(&kl_bins[(unsigned char)(kl_buffer16.w >> 8)], 1);
      atomicAdd(&kl_bins[(unsigned char)(kl_buffer16.w >> 16)], 1);
      atomicAdd(&kl_bins[(unsigned char)(kl_buffer16.w >> 24)], 1);
    }
    for (long i = (size / 16) * 16 + threadIdx.x + (long)blockIdx.x * blockDim.x; i < size; i += (long)blockDim.x * gridDim.x) atomicAdd(&kl_bins[buffer[i]], 1);
  } else {
    for (long i = threadIdx.x + (long)blockIdx.x * blockDim.x; i < size; i += (long)blockDim.x * gridDim.x) atomicAdd(&kl_bins[buffer[i]], 1);
  }
  __syncthreads();
  for (int kl_b = threadIdx.x; kl_b < 256; kl_b += blockDim.x)
    if (kl_bins[kl_b] != 0) atomicAdd(&histo[kl_b], kl_bins[kl_b]);
}
