// golden: refuses="x is indexed by i + 1"
// x is read at i + 1, not at the loop variable.
__global__ void k(const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    y[i] = x[i + 1] - x[i];
  }
}
