// Only the inner loop has a constant trip count; the outer one runs to n.
__global__ void k(const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float acc = 0.0f;
    for (int j = 3; j >= 0; --j)
      acc = acc * 0.5f + x[4 * i + j];
    y[i] = acc;
  }
}
