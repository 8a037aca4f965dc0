__global__ void k(int rows, int cols, const float* in, float* scaled, float* total) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (r >= rows) return;
  int s = 0;
  for (int c = 0 + kl_lane; c < cols; c += 32) {
    scaled[r * cols + c] = 2.0f * in[r * cols + c];
    s += in[r * cols + c] > 0.0f;
  }
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, kl_offset);
  __syncwarp();
  if (kl_lane == 0) total[r] = s;
}
