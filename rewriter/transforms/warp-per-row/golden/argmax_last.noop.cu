// golden: refuses="other than as a sum or a min/max"
// `>=` keeps the last maximum: lanes would have to prefer the larger column; not recognized.
__global__ void k(int rows, int cols, const float* in, float* vmax, int* where) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float best = in[r * cols];
  int at = 0;
  for (int c = 1; c < cols; ++c) {
    float v = in[r * cols + c];
    if (v >= best) {
      best = v;
      at = c;
    }
  }
  vmax[r] = best;
  where[r] = at;
}
