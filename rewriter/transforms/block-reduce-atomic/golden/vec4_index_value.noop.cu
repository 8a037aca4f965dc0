// golden: vector_width=4 refuses="the value uses i other than as p[i]"
// The index itself in the added value: not a plain read at the loop index.
__global__ void k(int n, const float* x, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i] * i);
}
