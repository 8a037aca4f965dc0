// golden: max_cols=1024 refuses="no strided loop reads a pointer at its counter"
// The row's offset reads a variable the kernel changes (base += C): it is not the same in every
// loop, so no offset counts as the row.
__global__ void k(float* out, const float* inp, int N, int C) {
  int idx = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (idx < N) {
    int base = idx * C;
    float m = -INFINITY;
    for (int i = 0 + kl_lane; i < C; i += 32) m = fmaxf(m, inp[base + i]);
    for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, kl_offset));
    base += 0;
    float s = 0.0f;
    for (int i = 0 + kl_lane; i < C; i += 32) s += expf(inp[base + i] - m);
    for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, kl_offset);
    if (kl_lane == 0) out[idx] = s;
  }
}
