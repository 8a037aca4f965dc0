// golden: refuses="do not fit the 4096"
__global__ void k(int n, const unsigned short* data, unsigned int* bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[data[i]], 1u);
}
