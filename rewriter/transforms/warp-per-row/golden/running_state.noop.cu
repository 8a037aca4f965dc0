// golden: refuses="other than as a sum or a min/max"
__global__ void k(int rows, int cols, const float* in, float* out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float m = -1e30f, s = 0.0f;
  for (int c = 0; c < cols; ++c) {
    float v = in[r * cols + c];
    float mn = fmaxf(m, v);
    s = s * expf(m - mn) + expf(v - mn);
    m = mn;
  }
  out[r] = m + logf(s);
}
