// golden: refuses="does not start from 0"
__global__ void k(int rows, int cols, const float* in, float* out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 1.0f;
  for (int c = 0; c < cols; ++c) s += in[r * cols + c];
  out[r] = s;
}
