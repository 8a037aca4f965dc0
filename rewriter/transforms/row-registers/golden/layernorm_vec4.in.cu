// golden: max_cols=2048 vector_width=4
__global__ void k(int rows, int cols, float eps, const float* in, const float* gamma, const float* beta, float* out) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (r >= rows) return;
  const float* x = in + (size_t)r * cols;
  float* y = out + (size_t)r * cols;
  float mean = 0.0f;
  for (int c = 0 + kl_lane; c < cols; c += 32) mean += x[c];
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) mean += __shfl_xor_sync(0xffffffffu, mean, kl_offset);
  mean /= cols;
  float var = 0.0f;
  for (int c = 0 + kl_lane; c < cols; c += 32) {
    float d = x[c] - mean;
    var += d * d;
  }
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) var += __shfl_xor_sync(0xffffffffu, var, kl_offset);
  var /= cols;
  float rstd = rsqrtf(var + eps);
  for (int c = 0 + kl_lane; c < cols; c += 32) y[c] = (x[c] - mean) * rstd * gamma[c] + beta[c];
}
