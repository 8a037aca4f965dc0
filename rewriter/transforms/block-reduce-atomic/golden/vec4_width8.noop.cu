// golden: vector_width=8 refuses="vector_width must be 1 or 4 (asked for 8)"
__global__ void k(int n, const float* x, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i]);
}
