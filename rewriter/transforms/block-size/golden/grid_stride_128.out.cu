// golden: threads=128
__global__ void __launch_bounds__(128) k(int n, const float* x, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = 2.0f * x[i];
}
