// A mineable expert (docs/lineage.md): the naive sgemm of src/naive/sgemm.cu as tile-sgemm's forward
// writes it (64 x 64 tile of C per 16 x 16 block, 4 x 4 outputs per thread), plus __restrict__
// pointers and __launch_bounds__(256): the shapes the inverses recognize, so `klineage mine` can
// walk it back to the naive kernel. The `mine_experts` target; never optimized by KLineage.
#include "mine.h"

__global__ void mine_sgemm(int M, int N, int K, float* A,
                                                  float* B, float* C) {
  // kl: a 64 x 64 tile of C per 16 x 16 block, 4 x 4 outputs per thread (strided by 16), K in steps of 16
  __shared__ float kl_As[16][64 + 2];  // A's tile, transposed
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
      int row = kl_r0 + kl_t / 16 + 16 * kl_i;
      int k = kl_k0 + kl_t % 16;
      kl_As[kl_t % 16][kl_t / 16 + 16 * kl_i] = row < M && k < K ? A[row * K + k] : 0.0f;
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

// The pointers are not const: -restrict-pointers drops the const it removes __restrict__ with.
cudaError_t launch_mine_sgemm(int M, int N, int K, float* A, float* B, float* C) {
  dim3 grid((N + 63) / 64, (M + 63) / 64);
  mine_sgemm<<<grid, dim3(16, 16)>>>(M, N, K, A, B, C);
  return cudaGetLastError();
}
