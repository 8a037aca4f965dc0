// golden: block=16x16 refuses="is not an expression of constants, parameters"
// The initial value calls a function: refused (it could read anything).
__device__ float start_of(const float* b, int i) { return b[i]; }

__global__ void k(int M, int N, int K, const float* A, const float* B, const float* bias, float* C) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float acc = start_of(bias, col);
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}
