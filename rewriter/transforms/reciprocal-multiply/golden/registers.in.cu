__global__ void k(int rows, int cols, const float* in, float* out) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (r >= rows) return;
  const float* x = in + (size_t)r * cols;
  float* y = out + (size_t)r * cols;
  float4 kl_row4[4];
  const bool kl_in_regs = cols <= 4 * 128 && cols % 4 == 0;
  float s = 0.0f;
  if (kl_in_regs) {
    #pragma unroll
    for (int kl_j = 0; kl_j < 4; ++kl_j) {
      kl_row4[kl_j] = reinterpret_cast<const float4*>(x)[kl_j * 32 + kl_lane];
      s += kl_row4[kl_j].x + kl_row4[kl_j].y + kl_row4[kl_j].z + kl_row4[kl_j].w;
    }
  } else
  #pragma unroll 4
  for (int c = 0 + kl_lane; c < cols; c += 32) s += x[c];
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, kl_offset);
  if (kl_in_regs) {
    #pragma unroll
    for (int kl_j = 0; kl_j < 4; ++kl_j) {
      const int kl_c = (kl_j * 32 + kl_lane) * 4;
      if (kl_c < cols) {
        float4 kl_v;
        kl_v.x = kl_row4[kl_j].x / s;
        kl_v.y = kl_row4[kl_j].y / s;
        kl_v.z = kl_row4[kl_j].z / s;
        kl_v.w = kl_row4[kl_j].w / s;
        reinterpret_cast<float4*>(y)[kl_j * 32 + kl_lane] = kl_v;
      }
    }
  } else
  #pragma unroll 4
  for (int c = 0 + kl_lane; c < cols; c += 32) y[c] = x[c] / s;
}
