// golden: refuses="no 2-D index"
// golden: block=16x16
// A 1-D kernel: one thread per element of C through a flat index.
__global__ void k(int M, int N, int K, const float* A, const float* B, float* C) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < M * N) {
    int row = i / N, col = i % N;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[i] = acc;
  }
}
