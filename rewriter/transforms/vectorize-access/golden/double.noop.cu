// golden: refuses="y has element type double"
__global__ void k(const double* x, double* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    y[i] = 2.0 * x[i];
  }
}
