// golden: block=16x16
// C = A * B^T: B is read along its rows (stride 1 in k); its tile is loaded along k and stored
// transposed, like A's.
__global__ void k(int M, int N, int K, const float* A, const float* B, float* C) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[col * K + k];
    C[row * N + col] = acc;
  }
}
