// A mineable expert (docs/lineage.md): the naive sgemm of src/naive/sgemm.cu as tile-sgemm's forward
// writes it (64 x 64 tile of C per 16 x 16 block, 4 x 4 outputs per thread), plus __restrict__
// pointers and __launch_bounds__(256): the shapes the inverses recognize, so `klineage mine` can
// walk it back to the naive kernel. The `mine_experts` target; never optimized by KLineage.
#include "mine.h"

__global__ void __launch_bounds__(256) mine_sgemm(int M, int N, int K, const float* __restrict__ A,
                                                  const float* __restrict__ B, float* __restrict__ C) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}

// The pointers are not const: -restrict-pointers drops the const it removes __restrict__ with.
cudaError_t launch_mine_sgemm(int M, int N, int K, float* A, float* B, float* C) {
  dim3 grid((N + 63) / 64, (M + 63) / 64);
  mine_sgemm<<<grid, dim3(16, 16)>>>(M, N, K, A, B, C);
  return cudaGetLastError();
}
