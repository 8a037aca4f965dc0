// golden: block=16x16
// 64-bit indices and a double accumulator: the declarations keep their types.
#include <cstddef>

__global__ void k(size_t M, size_t N, size_t K, const float* A, const float* B, float* C) {
  size_t col = blockIdx.x * blockDim.x + threadIdx.x;
  size_t row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    double acc = 0.0;
    for (size_t k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] += acc;
  }
}
