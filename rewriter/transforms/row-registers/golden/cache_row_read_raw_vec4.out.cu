// golden: max_cols=2048 vector_width=4
// expf(x[c] - m) is not reused: the output loop also reads x[c] raw, which the cached register would no longer hold
__global__ void k(int rows, int cols, const float* in, float* out) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (r >= rows) return;
  const float* x = in + (size_t)r * cols;
  float* y = out + (size_t)r * cols;
  float m = x[0];
  // the row, read once: elements (kl_j * 32 + kl_lane) * 4 + 0..3 in kl_row4[kl_j] (rows of up to 2048)
  float4 kl_row4[16];
  const bool kl_in_regs = cols <= 16 * 128 && cols % 4 == 0 && ((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) & 15) == 0;
  if (kl_in_regs) {
    #pragma unroll
    for (int kl_j = 0; kl_j < 16; ++kl_j) kl_row4[kl_j] = (kl_j * 32 + kl_lane) * 4 < cols ? reinterpret_cast<const float4*>(x)[kl_j * 32 + kl_lane] : make_float4(0, 0, 0, 0);
  }
  if (kl_in_regs) {
    #pragma unroll
    for (int kl_j = 0; kl_j < 16; ++kl_j) {
      const int kl_c = (kl_j * 32 + kl_lane) * 4;
      if (kl_c < cols) {
        if (kl_c + 0 >= 1) m = fmaxf(m, kl_row4[kl_j].x);
        if (kl_c + 1 >= 1) m = fmaxf(m, kl_row4[kl_j].y);
        if (kl_c + 2 >= 1) m = fmaxf(m, kl_row4[kl_j].z);
        if (kl_c + 3 >= 1) m = fmaxf(m, kl_row4[kl_j].w);
      }
    }
  } else for (int c = 1 + kl_lane; c < cols; c += 32) m = fmaxf(m, x[c]);
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, kl_offset));
  float s = 0.0f;
  if (kl_in_regs) {
    #pragma unroll
    for (int kl_j = 0; kl_j < 16; ++kl_j) {
      const int kl_c = (kl_j * 32 + kl_lane) * 4;
      if (kl_c < cols) {
        s += expf(kl_row4[kl_j].x - m);
        s += expf(kl_row4[kl_j].y - m);
        s += expf(kl_row4[kl_j].z - m);
        s += expf(kl_row4[kl_j].w - m);
      }
    }
  } else for (int c = 0 + kl_lane; c < cols; c += 32) s += expf(x[c] - m);
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, kl_offset);
  if (kl_in_regs) {
    #pragma unroll
    for (int kl_j = 0; kl_j < 16; ++kl_j) {
      const int kl_c = (kl_j * 32 + kl_lane) * 4;
      if (kl_c < cols) {
        float4 kl_v;
        kl_v.x = expf(kl_row4[kl_j].x - m) / s + kl_row4[kl_j].x;
        kl_v.y = expf(kl_row4[kl_j].y - m) / s + kl_row4[kl_j].y;
        kl_v.z = expf(kl_row4[kl_j].z - m) / s + kl_row4[kl_j].z;
        kl_v.w = expf(kl_row4[kl_j].w - m) / s + kl_row4[kl_j].w;
        reinterpret_cast<float4*>(y)[kl_j * 32 + kl_lane] = kl_v;
      }
    }
  } else for (int c = 0 + kl_lane; c < cols; c += 32) y[c] = expf(x[c] - m) / s + x[c];
}
