// golden: refuses="already has __launch_bounds__"
__global__ void __launch_bounds__(128) k(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}
