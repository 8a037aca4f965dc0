// Already a grid-stride loop (the normal form of `while (i < size) { ...; i += offset; }`): the
// launcher sized the grid itself, so it is kept.
__global__ void k(const unsigned char* buffer, long size, unsigned int* histo)
{
  __shared__ unsigned int kl_bins[256];
  for (int kl_b = threadIdx.x; kl_b < 256; kl_b += blockDim.x) kl_bins[kl_b] = 0;
  __syncthreads();
  for (long i = threadIdx.x + (long)blockIdx.x * blockDim.x; i < size; i += (long)blockDim.x * gridDim.x) atomicAdd(&kl_bins[buffer[i]], 1);
  __syncthreads();
  for (int kl_b = threadIdx.x; kl_b < 256; kl_b += blockDim.x)
    if (kl_bins[kl_b] != 0) atomicAdd(&histo[kl_b], kl_bins[kl_b]);
}
