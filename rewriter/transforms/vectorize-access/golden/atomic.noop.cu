// golden: refuses="calls atomicAdd (only pure math functions"
__global__ void k(const float* x, float* sum, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    y[i] = x[i];
    atomicAdd(sum, x[i]);
  }
}
