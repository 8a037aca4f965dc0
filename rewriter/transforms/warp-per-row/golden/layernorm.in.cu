__global__ void k(int rows, int cols, float eps, const float* in, const float* gamma, const float* beta, float* out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* x = in + (size_t)r * cols;
  float* y = out + (size_t)r * cols;
  float mean = 0.0f;
  for (int c = 0; c < cols; ++c) mean += x[c];
  mean /= cols;
  float var = 0.0f;
  for (int c = 0; c < cols; ++c) {
    float d = x[c] - mean;
    var += d * d;
  }
  var /= cols;
  float rstd = rsqrtf(var + eps);
  for (int c = 0; c < cols; ++c) y[c] = (x[c] - mean) * rstd * gamma[c] + beta[c];
}
