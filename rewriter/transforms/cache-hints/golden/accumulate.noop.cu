// golden: refuses="the kernel stores through no pointer parameter as a statement (out[i] = v;)"
__global__ void k(int n, const int* keys, unsigned* bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[keys[i]], 1u);
}
