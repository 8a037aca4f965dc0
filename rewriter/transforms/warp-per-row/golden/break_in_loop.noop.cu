// golden: refuses="a row loop has a break"
__global__ void k(int rows, int cols, const float* in, int* first) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  int at = -1;
  for (int c = 0; c < cols; ++c) {
    if (in[r * cols + c] < 0.0f) break;
    at = c;
  }
  first[r] = at;
}
