// golden: refuses="the guarded code uses threadIdx"
// The guarded code depends on which thread handles the element.
__global__ void k(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = x[i] + threadIdx.x;
  }
}
