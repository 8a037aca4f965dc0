// golden: block=16x16
// C = A^T * B with A stored K x M: A is read down its columns (A[k * M + row]), so its tile is
// loaded along row, not stored transposed.
__global__ void k(int M, int N, int K, const float* A, const float* B, float* C) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[k * M + row] * B[k * N + col];
    C[row * N + col] = acc;
  }
}
