// golden: refuses="assigns an element of an array declared outside it"
// A loop from 1 keeps a per-lane maximum in an array element that no butterfly combines: its lanes'
// elements change in the register path (c % 32 instead of (c - 1) % 32), so lane 0's m[0] would too.
__global__ void k(int rows, int cols, const float* in, float* out) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (r >= rows) return;
  const float* x = in + (size_t)r * cols;
  float m[1] = {x[0]};
  for (int c = 1 + kl_lane; c < cols; c += 32) m[0] = fmaxf(m[0], x[c]);
  float s = 0.0f;
  for (int c = 0 + kl_lane; c < cols; c += 32) s += x[c] - m[0];
  if (kl_lane == 0) out[r] = s;
}
