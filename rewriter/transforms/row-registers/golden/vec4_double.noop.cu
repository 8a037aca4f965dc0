// golden: vector_width=4 refuses="have no 4-wide vector type"
__global__ void k(int rows, int cols, const double* in, double* out) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (r >= rows) return;
  const double* x = in + (size_t)r * cols;
  double* y = out + (size_t)r * cols;
  double s = 0.0;
  for (int c = 0 + kl_lane; c < cols; c += 32) s += x[c];
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, kl_offset);
  for (int c = 0 + kl_lane; c < cols; c += 32) y[c] = x[c] / s;
}
