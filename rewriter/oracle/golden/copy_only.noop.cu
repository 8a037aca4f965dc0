// golden: refuses="no floating-point arithmetic"
// a copy: nothing is computed
__global__ void k(int n, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}
