// golden: vector_width=16 refuses="nothing to load as vectors"
__global__ void k(int n, const unsigned char* data, unsigned int* bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[(unsigned char)n], 1u);
}
