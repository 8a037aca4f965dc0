// golden: layout=vec8 refuses="the parameter layout must be"
// The naive sgemm of examples/experts: one thread per element of C, 16 x 16 blocks.
#include <cuda_runtime.h>

__global__ void k(int M, int N, int K, const float* A, const float* B, float* C) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}

cudaError_t launch(int M, int N, int K, const float* A, const float* B, float* C) {
  dim3 grid((N + 15) / 16, (M + 15) / 16);
  k<<<grid, dim3(16, 16)>>>(M, N, K, A, B, C);
  return cudaGetLastError();
}
