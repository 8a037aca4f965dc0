// golden: max_cols=2048 vector_width=4
// The experts' softmax in normal form (its row pointers x and y substituted by inline-pointer-offset):
// the row is loaded as float4 from (in + (size_t)r * cols) and stored to (out + (size_t)r * cols).
__global__ void k(int rows, int cols, const float* in, float* out) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (r >= rows) return;
  float m = in[(size_t)r * cols];
  for (int c = 1 + kl_lane; c < cols; c += 32) m = fmaxf(m, in[(size_t)r * cols + c]);
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, kl_offset));
  float s = 0.0f;
  for (int c = 0 + kl_lane; c < cols; c += 32) s += expf(in[(size_t)r * cols + c] - m);
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, kl_offset);
  for (int c = 0 + kl_lane; c < cols; c += 32) out[(size_t)r * cols + c] = expf(in[(size_t)r * cols + c] - m) / s;
}
