// golden: vector_width=16 refuses="keys has element type const unsigned int: 4 lanes a 16-byte vector, not vector_width 16"
__global__ void k(int n, const unsigned int* keys, int* bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[keys[i] & 1023u], 1);
}
