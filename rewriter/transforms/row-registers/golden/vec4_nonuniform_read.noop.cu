// golden: vector_width=4 refuses="reads t, which may differ between the lanes of a warp"
// t differs from lane to lane: in float4 mode element c moves from lane c % 32 to lane (c / 4) % 32,
// so y[c] would be scaled by another lane's t.
__global__ void k(int rows, int cols, const float* in, float* out) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (r >= rows) return;
  const float* x = in + (size_t)r * cols;
  float* y = out + (size_t)r * cols;
  float s = 0.0f;
  for (int c = 0 + kl_lane; c < cols; c += 32) s += x[c];
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, kl_offset);
  float t = s + kl_lane;
  for (int c = 0 + kl_lane; c < cols; c += 32) y[c] = x[c] / t;
}
