// one thread per column block of rows: the divisor changes per row, so the reciprocal is per row
__global__ void k(int rows, int cols, const float* in, float* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int r = t; r < rows; r += gridDim.x * blockDim.x) {
    float norm = 0.0f;
    for (int c = 0; c < cols; ++c) norm += in[r * cols + c];
    if (fabsf(norm) >= 1.17549435e-38f && fabsf(norm) <= 8.50705917e+37f) {
      const float kl_rcp_norm = 1.0f / norm;
      for (int c = 0; c < cols; ++c) {
        float v = in[r * cols + c] * kl_rcp_norm;
        out[r * cols + c] = v * v * kl_rcp_norm;
      }
    } else {
      for (int c = 0; c < cols; ++c) {
        float v = in[r * cols + c] / norm;
        out[r * cols + c] = v * v / norm;
      }
    }
  }
}
