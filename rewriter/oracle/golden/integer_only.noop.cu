// golden: refuses="no floating-point arithmetic to promote"
__global__ void k(int n, const int* x, int* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = (x[i] * 3 + 1) >> 1;
}
