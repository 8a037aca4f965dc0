// golden: refuses="written through a macro"
// golden: block=16x16
#define AT(p, r, c, ld) p[(r) * (ld) + (c)]

__global__ void k(int M, int N, int K, const float* A, const float* B, float* C) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += AT(A, row, k, K) * AT(B, k, col, N);
    AT(C, row, col, N) = acc;
  }
}
