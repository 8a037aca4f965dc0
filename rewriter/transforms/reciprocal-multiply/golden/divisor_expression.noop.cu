// golden: refuses="no float or double division by a variable"
__global__ void k(int n, float s, const float* x, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = x[i] / (s + 1.0f);
}
