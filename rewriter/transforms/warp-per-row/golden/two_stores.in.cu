__global__ void k(int rows, int cols, const float* in, float* scaled, float* total) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  int s = 0;
  for (int c = 0; c < cols; ++c) {
    scaled[r * cols + c] = 2.0f * in[r * cols + c];
    s += in[r * cols + c] > 0.0f;
  }
  total[r] = s;
}
