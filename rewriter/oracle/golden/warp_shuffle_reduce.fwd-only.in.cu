// one warp per row: lane partial sums of squares, then a shuffle reduction; lane 0 stores the norm
__global__ void k(int rows, int cols, const float* x, float* norms) {
  int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32;
  if (row >= rows) return;
  auto sum = 0.0f;
  for (int c = lane; c < cols; c += 32) {
    auto v = x[row * cols + c];
    sum += v * v;
  }
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (lane == 0) norms[row] = sqrtf(sum);
}
