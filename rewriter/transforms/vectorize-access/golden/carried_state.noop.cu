// golden: refuses="assigns prev, declared outside it"
__global__ void k(const float* x, float* y, int n) {
  float prev = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    y[i] = x[i] + prev;
    prev = x[i];
  }
}
