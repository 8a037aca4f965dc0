// golden: vector_width=4
// A 64-bit index (the strides in its type) and a bound that is an expression: (rows * cols) / 4.
__global__ void k(size_t rows, size_t cols, const int* x, int* out) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * cols) atomicAdd(out, x[i]);
}
