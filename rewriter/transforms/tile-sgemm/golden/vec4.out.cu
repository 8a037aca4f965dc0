// golden: layout=vec4
// golden: block=16x16
// The naive sgemm of examples/experts: one thread per element of C, 16 x 16 blocks.
#include <cuda_runtime.h>

__global__ void k(int M, int N, int K, const float* A, const float* B, float* C) {
  // kl: a 64 x 64 tile of C per 16 x 16 block, 4 x 4 consecutive outputs per thread (read as float4 from shared memory), K in steps of 16
  __shared__ __align__(16) float kl_As[16][64 + 4];  // A's tile, transposed
  __shared__ __align__(16) float kl_Bs[16][64];
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
      const float4 kl_a4 = *reinterpret_cast<const float4*>(&kl_As[kl_kk][threadIdx.y * 4]);
      const float4 kl_b4 = *reinterpret_cast<const float4*>(&kl_Bs[kl_kk][threadIdx.x * 4]);
      const float kl_a[4] = {kl_a4.x, kl_a4.y, kl_a4.z, kl_a4.w};
      const float kl_b[4] = {kl_b4.x, kl_b4.y, kl_b4.z, kl_b4.w};
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
      int row = kl_r0 + threadIdx.y * 4 + kl_i;
      int col = kl_c0 + threadIdx.x * 4 + kl_j;
      if (row < M && col < N) {
        float acc = kl_acc[kl_i][kl_j];
        C[row * N + col] = acc;
      }
    }
}

cudaError_t launch(int M, int N, int K, const float* A, const float* B, float* C) {
  dim3 grid((N + 15) / 16, (M + 15) / 16);
  k<<<grid, dim3(16, 16)>>>(M, N, K, A, B, C);
  return cudaGetLastError();
}
