// golden: refuses="the added value has an increment or decrement"
__global__ void k(int n, float* x, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i]++);
}
