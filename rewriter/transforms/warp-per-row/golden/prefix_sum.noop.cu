// golden: refuses="a row loop reads y, which it stores to"
__global__ void k(int rows, int cols, const float* in, float* out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* x = in + (size_t)r * cols;
  float* y = out + (size_t)r * cols;
  y[0] = x[0];
  for (int c = 1; c < cols; ++c) y[c] = y[c - 1] + x[c];
}
