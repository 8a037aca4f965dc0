// golden: refuses="the bins are not int, unsigned int or unsigned long long"
__global__ void k(int n, const unsigned char* data, float* bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[data[i]], 1.0f);
}
