// golden: refuses="only width 4 is supported (asked for 8)"
// golden: width=8
__global__ void k(const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    y[i] = x[i];
  }
}
