// golden: refuses="the number of bins is not known"
__global__ void k(int n, const int* data, unsigned int* bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[data[i]], 1u);
}
