// golden: refuses="the loop body reads y[i + 1] and stores to y[i]"
// An in-place shift: the element a lane reads may be one another lane of the same vector stores.
__global__ void k(float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    y[i] = y[i + 1];
  }
}
