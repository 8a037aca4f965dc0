// golden: refuses="the loop body stores to y[n - 1 - i], not to y[i]"
// A store at another index (a reversal): not one element per lane.
__global__ void k(const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    y[n - 1 - i] = x[i];
  }
}
