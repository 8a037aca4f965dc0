// golden: refuses="no element load through a const pointer parameter left"
__global__ void k(int n, const double* x, double* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __ldg(&x[i]) * 0.5;
}
