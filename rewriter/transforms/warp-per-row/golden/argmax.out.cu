// Each row's maximum and the first column holding it: two outputs per row.
__global__ void k(int rows, int cols, const float* in, float* vmax, int* where) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (r >= rows) return;
  float best = in[r * cols];
  int at = 0;
  for (int c = 1 + kl_lane; c < cols; c += 32) {
    float v = in[r * cols + c];
    if (v > best) {
      best = v;
      at = c;
    }
  }
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) { const float kl_v = __shfl_xor_sync(0xffffffffu, best, kl_offset); const int kl_i = __shfl_xor_sync(0xffffffffu, at, kl_offset); if (kl_v > best || (kl_v == best && kl_i < at)) { best = kl_v; at = kl_i; } }
  if (kl_lane == 0) vmax[r] = best;
  if (kl_lane == 0) where[r] = at;
}
