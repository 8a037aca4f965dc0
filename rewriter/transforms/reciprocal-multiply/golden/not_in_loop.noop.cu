// golden: refuses="not inside a loop"
__global__ void k(int n, float s, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] / s;
}
