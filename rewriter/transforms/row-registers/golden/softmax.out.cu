// golden: max_cols=2048
__global__ void k(int rows, int cols, const float* in, float* out) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (r >= rows) return;
  const float* x = in + (size_t)r * cols;
  float* y = out + (size_t)r * cols;
  float m = x[0];
  // the row, read once: element kl_j * 32 + kl_lane in kl_row[kl_j] (rows of up to 2048)
  float kl_row[64];
  const bool kl_in_regs = cols <= 64 * 32;
  if (kl_in_regs) {
    #pragma unroll
    for (int kl_j = 0; kl_j < 64; ++kl_j) kl_row[kl_j] = kl_j * 32 + kl_lane < cols ? x[kl_j * 32 + kl_lane] : float(0);
  }
  if (kl_in_regs) {
    #pragma unroll
    for (int kl_j = 0; kl_j < 64; ++kl_j) {
      const int c = kl_j * 32 + kl_lane;
      if (c >= 1 && c < cols) m = fmaxf(m, kl_row[kl_j]);
    }
  } else for (int c = 1 + kl_lane; c < cols; c += 32) m = fmaxf(m, x[c]);
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, kl_offset));
  float s = 0.0f;
  if (kl_in_regs) {
    #pragma unroll
    for (int kl_j = 0; kl_j < 64; ++kl_j) {
      const int c = kl_j * 32 + kl_lane;
      if (c >= 0 && c < cols) {
        kl_row[kl_j] = expf(kl_row[kl_j] - m);
        s += kl_row[kl_j];
      }
    }
  } else for (int c = 0 + kl_lane; c < cols; c += 32) s += expf(x[c] - m);
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, kl_offset);
  if (kl_in_regs) {
    #pragma unroll
    for (int kl_j = 0; kl_j < 64; ++kl_j) {
      const int c = kl_j * 32 + kl_lane;
      if (c >= 0 && c < cols) y[c] = kl_row[kl_j] / s;
    }
  } else for (int c = 0 + kl_lane; c < cols; c += 32) y[c] = expf(x[c] - m) / s;
}
