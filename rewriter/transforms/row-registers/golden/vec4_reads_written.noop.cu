// golden: vector_width=4 refuses="w, read in a loop reading x, is also written"
// w[c] is written by lane c % 32 (the first loop does not read x: it keeps warp-per-row's lanes) and
// would be read by lane (c / 4) % 32 in float4 mode.
__global__ void k(int rows, int cols, const float* in, float* ws, float* out) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (r >= rows) return;
  const float* x = in + (size_t)r * cols;
  float* w = ws + (size_t)r * cols;
  float* y = out + (size_t)r * cols;
  for (int c = 0 + kl_lane; c < cols; c += 32) w[c] = 0.5f;
  __syncwarp();
  float s = 0.0f;
  for (int c = 0 + kl_lane; c < cols; c += 32) s += x[c] * w[c];
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, kl_offset);
  for (int c = 0 + kl_lane; c < cols; c += 32) y[c] = x[c] / s;
}
