// golden: vector_width=4 refuses="the value reads x[idx[i]], not x[i] at the loop index"
// A gather: x is not read at the loop index.
__global__ void k(int n, const float* x, const int* idx, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[idx[i]]);
}
