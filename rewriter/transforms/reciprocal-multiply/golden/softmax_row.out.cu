__global__ void k(int rows, int cols, const float* in, float* out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* x = in + (size_t)r * cols;
  float* y = out + (size_t)r * cols;
  float m = x[0];
  for (int c = 1; c < cols; ++c) m = fmaxf(m, x[c]);
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) s += expf(x[c] - m);
  if (fabsf(s) >= 1.17549435e-38f && fabsf(s) <= 8.50705917e+37f) {
    const float kl_rcp_s = 1.0f / s;
    for (int c = 0; c < cols; ++c) y[c] = expf(x[c] - m) * kl_rcp_s;
  } else {
    for (int c = 0; c < cols; ++c) y[c] = expf(x[c] - m) / s;
  }
}
