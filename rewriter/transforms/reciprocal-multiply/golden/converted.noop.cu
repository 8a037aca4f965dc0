// golden: refuses="is not only stored as a float"
__global__ void k(int n, float s, const float* x, int* bin) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) bin[i] = (int)(x[i] / s);
}
