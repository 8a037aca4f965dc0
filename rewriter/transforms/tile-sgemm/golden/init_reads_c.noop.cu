// golden: block=16x16 refuses="is not an expression of constants, parameters"
// The sum starts from C's own element (C += A * B written into the initializer): refused, C is
// the output.
__global__ void k(int M, int N, int K, const float* A, const float* B, float* C) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float acc = C[row * N + col];
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}
