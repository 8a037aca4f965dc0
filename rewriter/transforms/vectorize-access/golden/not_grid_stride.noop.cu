// golden: refuses="not a grid-stride loop over the global thread index"
// A block-stride loop: not a grid-stride loop over the global index.
__global__ void k(const float* x, float* y, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    y[i] = x[i];
  }
}
