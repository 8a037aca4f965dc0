// golden: vector_width=2 refuses="vector_width must be 1 or 4"
__global__ void k(int rows, int cols, const float* in, const float* w, float* out, float* acc) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (r >= rows) return;
  const float* x = in + (size_t)r * cols;
  float* y = out + (size_t)r * cols;
  float s = 0.0f;
  for (int c = 0 + kl_lane; c < cols; c += 32) s += x[c];
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, kl_offset);
  for (int c = 0 + kl_lane; c < cols; c += 32) y[c] = x[c] / s;
}
