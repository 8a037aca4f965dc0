// golden: refuses="is not only stored as a float"
__global__ void k(int n, float s, const float* x, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    if (x[i] / s > 0.5f) y[i] = 1.0f;
}
