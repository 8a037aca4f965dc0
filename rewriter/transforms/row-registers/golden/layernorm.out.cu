// golden: max_cols=2048
__global__ void k(int rows, int cols, float eps, const float* in, const float* gamma, const float* beta, float* out) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (r >= rows) return;
  const float* x = in + (size_t)r * cols;
  float* y = out + (size_t)r * cols;
  float mean = 0.0f;
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
      if (c >= 0 && c < cols) mean += kl_row[kl_j];
    }
  } else for (int c = 0 + kl_lane; c < cols; c += 32) mean += x[c];
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) mean += __shfl_xor_sync(0xffffffffu, mean, kl_offset);
  mean /= cols;
  float var = 0.0f;
  if (kl_in_regs) {
    #pragma unroll
    for (int kl_j = 0; kl_j < 64; ++kl_j) {
      const int c = kl_j * 32 + kl_lane;
      if (c >= 0 && c < cols) {
        float d = kl_row[kl_j] - mean;
        var += d * d;
      }
    }
  } else for (int c = 0 + kl_lane; c < cols; c += 32) {
    float d = x[c] - mean;
    var += d * d;
  }
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) var += __shfl_xor_sync(0xffffffffu, var, kl_offset);
  var /= cols;
  float rstd = rsqrtf(var + eps);
  if (kl_in_regs) {
    #pragma unroll
    for (int kl_j = 0; kl_j < 64; ++kl_j) {
      const int c = kl_j * 32 + kl_lane;
      if (c >= 0 && c < cols) y[c] = (kl_row[kl_j] - mean) * rstd * gamma[c] + beta[c];
    }
  } else for (int c = 0 + kl_lane; c < cols; c += 32) y[c] = (x[c] - mean) * rstd * gamma[c] + beta[c];
}
