// golden: max_cols=1024 vector_width=4
// int rows (int4), a store loop from 4 (a multiple of 4: vector stores from the second vector on) and
// one from 2 (scalar stores, each element guarded). Both start off a multiple of 32: the scalar form
// refuses them, float4 mode takes them (each element is stored by exactly one lane, from values
// every lane shares).
__global__ void k(int rows, int cols, const int* in, int* out, int* out2) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (r >= rows) return;
  const int* x = in + (size_t)r * cols;
  int* y = out + (size_t)r * cols;
  int* z = out2 + (size_t)r * cols;
  int s = 0;
  // the row, read once: elements (kl_j * 32 + kl_lane) * 4 + 0..3 in kl_row4[kl_j] (rows of up to 1024)
  int4 kl_row4[8];
  const bool kl_in_regs = cols <= 8 * 128 && cols % 4 == 0 && ((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) & 15) == 0;
  if (kl_in_regs) {
    #pragma unroll
    for (int kl_j = 0; kl_j < 8; ++kl_j) kl_row4[kl_j] = (kl_j * 32 + kl_lane) * 4 < cols ? reinterpret_cast<const int4*>(x)[kl_j * 32 + kl_lane] : make_int4(0, 0, 0, 0);
  }
  if (kl_in_regs) {
    #pragma unroll
    for (int kl_j = 0; kl_j < 8; ++kl_j) {
      const int kl_c = (kl_j * 32 + kl_lane) * 4;
      if (kl_c < cols) {
        s += kl_row4[kl_j].x;
        s += kl_row4[kl_j].y;
        s += kl_row4[kl_j].z;
        s += kl_row4[kl_j].w;
      }
    }
  } else for (int c = 0 + kl_lane; c < cols; c += 32) s += x[c];
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, kl_offset);
  if (kl_in_regs) {
    #pragma unroll
    for (int kl_j = 0; kl_j < 8; ++kl_j) {
      const int kl_c = (kl_j * 32 + kl_lane) * 4;
      if (kl_c >= 4 && kl_c < cols) {
        int4 kl_v;
        kl_v.x = kl_row4[kl_j].x - s;
        kl_v.y = kl_row4[kl_j].y - s;
        kl_v.z = kl_row4[kl_j].z - s;
        kl_v.w = kl_row4[kl_j].w - s;
        reinterpret_cast<int4*>(y)[kl_j * 32 + kl_lane] = kl_v;
      }
    }
  } else for (int c = 4 + kl_lane; c < cols; c += 32) y[c] = x[c] - s;
  __syncwarp();
  if (kl_in_regs) {
    #pragma unroll
    for (int kl_j = 0; kl_j < 8; ++kl_j) {
      const int kl_c = (kl_j * 32 + kl_lane) * 4;
      if (kl_c < cols) {
        if (kl_c + 0 >= 2) z[kl_c + 0] = kl_row4[kl_j].x * s;
        if (kl_c + 1 >= 2) z[kl_c + 1] = kl_row4[kl_j].y * s;
        if (kl_c + 2 >= 2) z[kl_c + 2] = kl_row4[kl_j].z * s;
        if (kl_c + 3 >= 2) z[kl_c + 3] = kl_row4[kl_j].w * s;
      }
    }
  } else for (int c = 2 + kl_lane; c < cols; c += 32) z[c] = x[c] * s;
}
