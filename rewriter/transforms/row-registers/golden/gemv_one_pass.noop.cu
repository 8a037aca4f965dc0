// golden: refuses="in only one strided loop"
__global__ void k(int rows, int cols, const float* A, const float* v, float* out) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (r >= rows) return;
  const float* a = A + (size_t)r * cols;
  float acc = 0.0f;
  for (int c = 0 + kl_lane; c < cols; c += 32) acc += a[c] * v[c];
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, kl_offset);
  if (kl_lane == 0) out[r] = acc;
}
