// golden: refuses="assigns m other than as a sum or min/max combined across the warp right after it"
// Each lane's maximum is summed across the warp: the result depends on which elements each lane had,
// and a loop from 1 hands them to other lanes in the register path.
__global__ void k(int rows, int cols, const float* in, float* out) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (r >= rows) return;
  const float* x = in + (size_t)r * cols;
  float m = x[0];
  for (int c = 1 + kl_lane; c < cols; c += 32) m = fmaxf(m, x[c]);
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) m += __shfl_xor_sync(0xffffffffu, m, kl_offset);
  float s = 0.0f;
  for (int c = 0 + kl_lane; c < cols; c += 32) s += x[c] - m;
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, kl_offset);
  if (kl_lane == 0) out[r] = s;
}
