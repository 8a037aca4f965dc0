// golden: refuses="no float or double division by a variable"
__global__ void k(int n, int d, const int* x, int* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = x[i] / d;
}
