// golden: refuses="no const pointer parameter"
__global__ void k(int n, float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += x[i];
}
