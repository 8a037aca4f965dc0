__global__ void k(int rows, int cols, const float* in, float* out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float mx = -1e30f;
  for (int c = 0; c < cols; c++) mx = max(in[r * cols + c], mx);
  out[r] = mx;
}
