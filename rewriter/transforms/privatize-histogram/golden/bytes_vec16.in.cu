// golden: vector_width=16
// Bytes into 256 bins, 16 bytes a thread and iteration (one uint4 load) where the data is aligned.
__global__ void k(int n, const unsigned char* data, unsigned int* bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[data[i]], 1u);
}
