// golden: refuses="is double, not float"
// golden: block=16x16
// A dgemm: the tiles and the zero fill are float.
__global__ void k(int M, int N, int K, const double* A, const double* B, double* C) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    double acc = 0.0;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}
