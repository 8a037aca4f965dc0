// golden: refuses="already uses __shared__ memory"
// golden: block=16x16
// Already tiled by hand (a 16 x 16 tile of B in shared memory).
__global__ void k(int M, int N, int K, const float* A, const float* B, float* C) {
  __shared__ float tile[16][16];
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += 16) {
    tile[threadIdx.y][threadIdx.x] = k0 + threadIdx.y < K && col < N ? B[(k0 + threadIdx.y) * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < 16 && k0 + k < K; ++k) acc += (row < M ? A[row * K + k0 + k] : 0.0f) * tile[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}
