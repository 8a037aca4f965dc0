// golden: block=16x16
// C = A^T * B with A stored K x M: A is read down its columns (A[k * M + row]), so its tile is
// loaded along row, not stored transposed.
__global__ void k(int M, int N, int K, const float* A, const float* B, float* C) {
  // kl: a 64 x 64 tile of C per 16 x 16 block, 4 x 4 outputs per thread (strided by 16), K in steps of 16
  __shared__ float kl_As[16][64];
  __shared__ float kl_Bs[16][64];
  const int kl_r0 = blockIdx.y * 64;
  const int kl_c0 = blockIdx.x * 64;
  const int kl_t = threadIdx.y * 16 + threadIdx.x;
  float kl_acc[4][4];
  #pragma unroll
  for (int kl_i = 0; kl_i < 4; ++kl_i)
    #pragma unroll
    for (int kl_j = 0; kl_j < 4; ++kl_j) kl_acc[kl_i][kl_j] = 0.0f;
  for (int kl_k0 = 0; kl_k0 < K; kl_k0 += 16) {
    #pragma unroll
    for (int kl_i = 0; kl_i < 4; ++kl_i) {
      int row = kl_r0 + kl_t % 64;
      int k = kl_k0 + kl_t / 64 + 4 * kl_i;
      kl_As[kl_t / 64 + 4 * kl_i][kl_t % 64] = row < M && k < K ? A[k * M + row] : 0.0f;
    }
    #pragma unroll
    for (int kl_i = 0; kl_i < 4; ++kl_i) {
      int k = kl_k0 + kl_t / 64 + 4 * kl_i;
      int col = kl_c0 + kl_t % 64;
      kl_Bs[kl_t / 64 + 4 * kl_i][kl_t % 64] = k < K && col < N ? B[k * N + col] : 0.0f;
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
      int row = kl_r0 + threadIdx.y + 16 * kl_i;
      int col = kl_c0 + threadIdx.x + 16 * kl_j;
      if (row < M && col < N) {
        float acc = kl_acc[kl_i][kl_j];
        C[row * N + col] = acc;
      }
    }
}
