// golden: refuses="only atomicAdd sums are reduced"
__global__ void k(int n, const int* x, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicMax(out, x[i]);
}
