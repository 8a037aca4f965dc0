// golden: refuses="the bounds guard is not the last statement"
__global__ void k(const float* x, float* y, int* done, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = x[i];
  }
  if (i == 0) *done = 1;
}
