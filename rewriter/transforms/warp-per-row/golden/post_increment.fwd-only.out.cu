__global__ void k(int rows, int cols, const float* in, float* out) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (r >= rows) return;
  float mx = -1e30f;
  for (int c = 0 + kl_lane; c < cols; c += 32) mx = max(in[r * cols + c], mx);
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) mx = max(mx, __shfl_xor_sync(0xffffffffu, mx, kl_offset));
  if (kl_lane == 0) out[r] = mx;
}
