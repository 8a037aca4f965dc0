// golden: block=16x16
// A linear layer out = inp * weight^T + bias in normal form: the x index t runs over the rows of
// out (tokens), the y index o over its columns (output features); the sum starts from the bias.
__global__ void k(float* out, const float* inp, const float* weight, const float* bias, int BT, int C, int OC) {
  // kl: a 64 x 64 tile of C per 16 x 16 block, 4 x 4 outputs per thread (strided by 16), K in steps of 16
  __shared__ float kl_As[16][64 + 2];  // A's tile, transposed
  __shared__ float kl_Bs[16][64 + 2];  // B's tile, transposed
  const int kl_r0 = blockIdx.x * 64;
  const int kl_c0 = blockIdx.y * 64;
  const int kl_t = threadIdx.y * 16 + threadIdx.x;
  float kl_acc[4][4];
  #pragma unroll
  for (int kl_i = 0; kl_i < 4; ++kl_i)
    #pragma unroll
    for (int kl_j = 0; kl_j < 4; ++kl_j) {
      int t = kl_r0 + threadIdx.y + 16 * kl_i;
      int o = kl_c0 + threadIdx.x + 16 * kl_j;
      kl_acc[kl_i][kl_j] = t < BT && o < OC ? ((bias != nullptr) ? bias[o] : 0.0f) : 0.0f;
    }
  for (int kl_k0 = 0; kl_k0 < C; kl_k0 += 16) {
    #pragma unroll
    for (int kl_i = 0; kl_i < 4; ++kl_i) {
      int t = kl_r0 + kl_t / 16 + 16 * kl_i;
      int c = kl_k0 + kl_t % 16;
      kl_As[kl_t % 16][kl_t / 16 + 16 * kl_i] = t < BT && c < C ? inp[t * C + c] : 0.0f;
    }
    #pragma unroll
    for (int kl_i = 0; kl_i < 4; ++kl_i) {
      int c = kl_k0 + kl_t % 16;
      int o = kl_c0 + kl_t / 16 + 16 * kl_i;
      kl_Bs[kl_t % 16][kl_t / 16 + 16 * kl_i] = c < C && o < OC ? weight[o * C + c] : 0.0f;
    }
    __syncthreads();
    #pragma unroll
    for (int kl_kk = 0; kl_kk < 16; ++kl_kk) {
      float kl_a[4], kl_b[4];
      #pragma unroll
      for (int kl_i = 0; kl_i < 4; ++kl_i) kl_a[kl_i] = kl_As[kl_kk][threadIdx.y + 16 * kl_i];
      #pragma unroll
      for (int kl_j = 0; kl_j < 4; ++kl_j) kl_b[kl_j] = kl_Bs[kl_kk][threadIdx.x + 16 * kl_j];
      #pragma unroll
      for (int kl_i = 0; kl_i < 4; ++kl_i)
        #pragma unroll
        for (int kl_j = 0; kl_j < 4; ++kl_j) kl_acc[kl_i][kl_j] += kl_a[kl_i] * kl_b[kl_j];
    }
    __syncthreads();
  }
  #pragma unroll
  for (int kl_i = 0; kl_i < 4; ++kl_i)
    #pragma unroll
    for (int kl_j = 0; kl_j < 4; ++kl_j) {
      int t = kl_r0 + threadIdx.y + 16 * kl_i;
      int o = kl_c0 + threadIdx.x + 16 * kl_j;
      if (t < BT && o < OC) {
        float val = kl_acc[kl_i][kl_j];
        out[t * OC + o] = val;
      }
    }
}
