// Each row's maximum and the first column holding it: two outputs per row.
__global__ void k(int rows, int cols, const float* in, float* vmax, int* where) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float best = in[r * cols];
  int at = 0;
  for (int c = 1; c < cols; ++c) {
    float v = in[r * cols + c];
    if (v > best) {
      best = v;
      at = c;
    }
  }
  vmax[r] = best;
  where[r] = at;
}
