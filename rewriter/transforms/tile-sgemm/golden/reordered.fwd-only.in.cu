// golden: block=16x16
// The same dot product written differently: row first, the index sums the other way round, the
// guard's comparisons swapped, acc = acc + B * A in braces, k++. Forward reads it; inverse writes
// the canonical form, so this case is forward-only.
__global__ void k(int M, int N, int K, const float* A, const float* B, float* C) {
  const int row = threadIdx.y + blockIdx.y * blockDim.y;
  const int col = threadIdx.x + blockDim.x * blockIdx.x;
  if (col < N && M > row) {
    float acc = 0.0f;
    for (int k = 0; k < K; k++) {
      acc = acc + B[k * N + col] * A[K * row + k];
    }
    C[col + row * N] = acc;
  }
}
