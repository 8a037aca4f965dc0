// Naive SGEMM, row-major: one thread per element of C, a dot product of a row of A and a column of B
// straight from global memory, 16 x 16 blocks.
#include "launch_sites.h"

#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))

__global__ void sgemm_naive(int M, int N, int K, float alpha, const float* A, const float* B,
                            float beta, float* C) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = alpha * acc + beta * C[row * N + col];
  }
}

void sgemm(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C) {
  dim3 gridDim(CEIL_DIV(N, 16), CEIL_DIV(M, 16));
  dim3 blockDim(16, 16);
  sgemm_naive<<<gridDim, blockDim>>>(M, N, K, alpha, A, B, beta, C);
}
