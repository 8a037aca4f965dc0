// golden: refuses="reads memory"
// golden: block=16x16
// The leading dimension of A is read from memory.
__global__ void k(int M, int N, int K, const int* lda, const float* A, const float* B, float* C) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * lda[0] + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}
