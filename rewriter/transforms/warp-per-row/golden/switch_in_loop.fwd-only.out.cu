// A break inside a switch leaves the switch, not the row loop: the loop can still be strided.
__global__ void k(int rows, int cols, const int* codes, float* out) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (r >= rows) return;
  float s = 0.0f;
  for (int c = 0 + kl_lane; c < cols; c += 32) {
    switch (codes[r * cols + c]) {
      case 0:
        s += 1.0f;
        break;
      default:
        break;
    }
  }
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, kl_offset);
  if (kl_lane == 0) out[r] = s;
}
