// golden: refuses="has no `for (int c = A; c < B; ++c)` loop"
__global__ void k(int rows, const float* in, float* out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  out[r] = 2.0f * in[r];
}
