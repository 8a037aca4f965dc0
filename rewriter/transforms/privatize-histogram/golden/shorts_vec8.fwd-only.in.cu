// golden: vector_width=8
// 2-byte keys: 8 a vector, each shifted out of its 32-bit word.
__global__ void k(int n, const unsigned short* data, unsigned long long* bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(bins + (data[i] % 100u), 1ull);
}
