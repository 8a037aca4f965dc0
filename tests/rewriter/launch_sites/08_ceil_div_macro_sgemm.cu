// shape: function-like CEIL_DIV macro, dim3 gridDim(CEIL_DIV(M, 32), CEIL_DIV(N, 32)); dim3 blockDim(32 * 32) (locals shadow the builtins)
// kernel: sgemm_coalesced
// args: M=100 N=70 K=64 alpha=1 beta=0
// grid: 4 3 1
// block: 1024 1 1
// shmem: 0
#include <cuda_runtime.h>

#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))

__global__ void sgemm_coalesced(int M, int N, int K, float alpha, const float* A,
                                const float* B, float beta, float* C) {
  const int row = blockIdx.x * 32 + threadIdx.x / 32;
  const int col = blockIdx.y * 32 + threadIdx.x % 32;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = alpha * acc + beta * C[row * N + col];
  }
}

void run_sgemm_coalesced(int M, int N, int K, float alpha, const float* A, const float* B,
                         float beta, float* C) {
  dim3 gridDim(CEIL_DIV(M, 32), CEIL_DIV(N, 32));
  dim3 blockDim(32 * 32);
  sgemm_coalesced<<<gridDim, blockDim>>>(M, N, K, alpha, A, B, beta, C);
}
