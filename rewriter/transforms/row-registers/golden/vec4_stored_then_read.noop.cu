// golden: vector_width=4 refuses="y, stored in a loop reading x, is also accessed at `y[c]`"
// The last loop reads y[c] in lane c % 32 (it does not read x: it keeps warp-per-row's lanes); in
// float4 mode lane (c / 4) % 32 wrote it.
__global__ void k(int rows, int cols, const float* in, float* out, float* out2) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (r >= rows) return;
  const float* x = in + (size_t)r * cols;
  float* y = out + (size_t)r * cols;
  float* z = out2 + (size_t)r * cols;
  float s = 0.0f;
  for (int c = 0 + kl_lane; c < cols; c += 32) s += x[c];
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, kl_offset);
  for (int c = 0 + kl_lane; c < cols; c += 32) y[c] = x[c] / s;
  __syncwarp();
  for (int c = 0 + kl_lane; c < cols; c += 32) z[c] = y[c] * 2.0f;
}
