// Row statistics: two outputs written once per row, a size_t row offset, an early return.
__global__ void k(const float* __restrict__ in, float* __restrict__ mean, float* __restrict__ var, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* row = in + (size_t)r * cols;
  float s = 0.0f, ss = 0.0f;
  for (int c = 0; c < cols; ++c) {
    s += row[c];
    ss += row[c] * row[c];
  }
  const float m = s / cols;
  __stcs(&mean[r], m);
  __stcs(&var[r], ss / cols - m * m);
}
