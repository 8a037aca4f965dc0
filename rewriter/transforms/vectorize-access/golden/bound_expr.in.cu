// A bound that is an expression is hoisted into kl_n; int and unsigned arrays.
__global__ void k(const int* a, const unsigned int* b, unsigned int* c, int rows, int cols) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < rows * cols; i += gridDim.x * blockDim.x) {
    c[i] = b[i] + (unsigned int)max(a[i], 0);
  }
}
