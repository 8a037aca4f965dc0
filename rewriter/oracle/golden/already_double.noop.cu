// golden: refuses="computes in double: no wider type on the GPU"
__global__ void k(int rows, int cols, const float* x, float* y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  double acc = 0.0;
  for (int c = 0; c < cols; ++c) acc += x[r * cols + c];
  y[r] = (float)(acc / cols);
}
