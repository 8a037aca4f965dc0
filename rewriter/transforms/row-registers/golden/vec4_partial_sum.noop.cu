// golden: vector_width=4 refuses="assigns s other than as a sum or min/max combined by a full-mask xor butterfly"
// Each lane's partial sum is used before the warp combines it: in float4 mode a lane's partial holds
// other elements (the scalar form keeps the lanes' elements, so it applies).
__global__ void k(int rows, int cols, const float* in, float* out) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (r >= rows) return;
  const float* x = in + (size_t)r * cols;
  float* y = out + (size_t)r * cols;
  float s = 0.0f;
  for (int c = 0 + kl_lane; c < cols; c += 32) s += x[c];
  for (int c = 0 + kl_lane; c < cols; c += 32) y[c] = x[c] * s;
}
