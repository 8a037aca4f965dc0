// golden: vector_width=4 refuses="the value reads x[i + 1], not x[i] at the loop index"
// Not a read at the loop index: the lanes of x[i] do not give x[i + 1].
__global__ void k(int n, const float* x, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - 1) atomicAdd(out, x[i + 1] - x[i]);
}
