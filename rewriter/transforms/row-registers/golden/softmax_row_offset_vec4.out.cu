// golden: max_cols=2048 vector_width=4
// The experts' softmax in normal form (its row pointers x and y substituted by inline-pointer-offset):
// the row is loaded as float4 from (in + (size_t)r * cols) and stored to (out + (size_t)r * cols).
__global__ void k(int rows, int cols, const float* in, float* out) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (r >= rows) return;
  float m = in[(size_t)r * cols];
  // the row, read once: elements (kl_j * 32 + kl_lane) * 4 + 0..3 in kl_row4[kl_j] (rows of up to 2048)
  float4 kl_row4[16];
  const bool kl_in_regs = cols <= 16 * 128 && cols % 4 == 0 && ((reinterpret_cast<unsigned long long>((in + (size_t)r * cols)) | reinterpret_cast<unsigned long long>((out + (size_t)r * cols))) & 15) == 0;
  if (kl_in_regs) {
    #pragma unroll
    for (int kl_j = 0; kl_j < 16; ++kl_j) kl_row4[kl_j] = (kl_j * 32 + kl_lane) * 4 < cols ? reinterpret_cast<const float4*>((in + (size_t)r * cols))[kl_j * 32 + kl_lane] : make_float4(0, 0, 0, 0);
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
  } else for (int c = 1 + kl_lane; c < cols; c += 32) m = fmaxf(m, in[(size_t)r * cols + c]);
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, kl_offset));
  float s = 0.0f;
  if (kl_in_regs) {
    #pragma unroll
    for (int kl_j = 0; kl_j < 16; ++kl_j) {
      const int kl_c = (kl_j * 32 + kl_lane) * 4;
      if (kl_c < cols) {
        kl_row4[kl_j].x = expf(kl_row4[kl_j].x - m);
        s += kl_row4[kl_j].x;
        kl_row4[kl_j].y = expf(kl_row4[kl_j].y - m);
        s += kl_row4[kl_j].y;
        kl_row4[kl_j].z = expf(kl_row4[kl_j].z - m);
        s += kl_row4[kl_j].z;
        kl_row4[kl_j].w = expf(kl_row4[kl_j].w - m);
        s += kl_row4[kl_j].w;
      }
    }
  } else for (int c = 0 + kl_lane; c < cols; c += 32) s += expf(in[(size_t)r * cols + c] - m);
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, kl_offset);
  if (kl_in_regs) {
    #pragma unroll
    for (int kl_j = 0; kl_j < 16; ++kl_j) {
      const int kl_c = (kl_j * 32 + kl_lane) * 4;
      if (kl_c < cols) {
        float4 kl_v;
        kl_v.x = kl_row4[kl_j].x / s;
        kl_v.y = kl_row4[kl_j].y / s;
        kl_v.z = kl_row4[kl_j].z / s;
        kl_v.w = kl_row4[kl_j].w / s;
        reinterpret_cast<float4*>((out + (size_t)r * cols))[kl_j * 32 + kl_lane] = kl_v;
      }
    }
  } else for (int c = 0 + kl_lane; c < cols; c += 32) out[(size_t)r * cols + c] = expf(in[(size_t)r * cols + c] - m) / s;
}
