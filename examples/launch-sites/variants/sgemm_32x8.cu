// A hand-written variant of src/sgemm.cu: the same kernel on 32 x 8 blocks (a warp reads 32
// consecutive columns of B), the grid through dim3 locals and the CEIL_DIV macro.
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
  constexpr int kCols = 32, kRows = 8;
  dim3 block(kCols, kRows);
  dim3 grid(CEIL_DIV(N, kCols), CEIL_DIV(M, kRows));
  sgemm_naive<<<grid, block>>>(M, N, K, alpha, A, B, beta, C);
}
