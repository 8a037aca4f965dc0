// C = alpha * A * B + beta * C (row-major, M x K times K x N) with a 64 x 64 block tile, a K step of
// 8, and an 8 x 8 register tile per thread (64 threads); A is stored transposed in shared memory so
// that both operands are read as float4.
#define BM 64
#define BN 64
#define BK 8
#define TM 8
#define TN 8

__global__ void __launch_bounds__(64) style_sgemm(int M, int N, int K, float alpha, const float* __restrict__ A,
                                                  const float* __restrict__ B, float beta, float* __restrict__ C) {
  __shared__ float As[BK][BM];
  __shared__ float Bs[BK][BN];
  const int tx = threadIdx.x % (BN / TN), ty = threadIdx.x / (BN / TN);
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  float acc[TM][TN] = {};
  float a_reg[TM], b_reg[TN];
  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int e = threadIdx.x; e < BM * BK; e += blockDim.x) {
      const int r = e / BK, c = e % BK;
      As[c][r] = (row0 + r < M && k0 + c < K) ? A[(row0 + r) * K + k0 + c] : 0.0f;
    }
    for (int e = threadIdx.x; e < BK * BN; e += blockDim.x) {
      const int r = e / BN, c = e % BN;
      Bs[r][c] = (k0 + r < K && col0 + c < N) ? B[(k0 + r) * N + col0 + c] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int m = 0; m < TM; m += 4) {
        const float4 v = *reinterpret_cast<const float4*>(&As[k][ty * TM + m]);
        a_reg[m] = v.x, a_reg[m + 1] = v.y, a_reg[m + 2] = v.z, a_reg[m + 3] = v.w;
      }
#pragma unroll
      for (int n = 0; n < TN; n += 4) {
        const float4 v = *reinterpret_cast<const float4*>(&Bs[k][tx * TN + n]);
        b_reg[n] = v.x, b_reg[n + 1] = v.y, b_reg[n + 2] = v.z, b_reg[n + 3] = v.w;
      }
#pragma unroll
      for (int m = 0; m < TM; ++m)
#pragma unroll
        for (int n = 0; n < TN; ++n) acc[m][n] += a_reg[m] * b_reg[n];
    }
    __syncthreads();
  }
#pragma unroll
  for (int m = 0; m < TM; ++m)
#pragma unroll
    for (int n = 0; n < TN; ++n) {
      const int r = row0 + ty * TM + m, c = col0 + tx * TN + n;
      if (r < M && c < N) C[r * N + c] = alpha * acc[m][n] + beta * C[r * N + c];
    }
}

void styleSgemm(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C) {
  dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
  style_sgemm<<<grid, BM * BN / (TM * TN)>>>(M, N, K, alpha, A, B, beta, C);
}
