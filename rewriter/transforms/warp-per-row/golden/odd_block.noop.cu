// golden: block_size=48 refuses="is not 1-D with a multiple of 32 threads"
__global__ void k(int rows, int cols, const float* in, float* out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) s += in[r * cols + c];
  out[r] = s;
}
