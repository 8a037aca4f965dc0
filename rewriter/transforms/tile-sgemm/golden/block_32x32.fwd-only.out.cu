// golden: block=32x32
// A 32 x 32 naive launch: the tiled kernel is the same text; the launch gets grid / 2 and a 16 x 16 block.
// C = alpha * A * B + beta * C with leading dimensions of their own, restrict pointers, indented
// by four spaces: the accesses, the guard and the store are kept as written.
__global__ void k(int m, int n, int kk, float alpha, const float* __restrict__ a, int lda,
                  const float* __restrict__ b, int ldb, float beta, float* __restrict__ c, int ldc) {
    // kl: a 64 x 64 tile of C per 16 x 16 block, 4 x 4 outputs per thread (strided by 16), K in steps of 16
    __shared__ float kl_As[16][64 + 2];  // A's tile, transposed
    __shared__ float kl_Bs[16][64];
    const int kl_r0 = blockIdx.y * 64;
    const int kl_c0 = blockIdx.x * 64;
    const int kl_t = threadIdx.y * 16 + threadIdx.x;
    float kl_acc[4][4];
    #pragma unroll
    for (int kl_i = 0; kl_i < 4; ++kl_i)
        #pragma unroll
        for (int kl_j = 0; kl_j < 4; ++kl_j) kl_acc[kl_i][kl_j] = 0;
    for (int kl_k0 = 0; kl_k0 < kk; kl_k0 += 16) {
        #pragma unroll
        for (int kl_i = 0; kl_i < 4; ++kl_i) {
            int y = kl_r0 + kl_t / 16 + 16 * kl_i;
            int i = kl_k0 + kl_t % 16;
            kl_As[kl_t % 16][kl_t / 16 + 16 * kl_i] = y < m && i < kk ? a[y * lda + i] : 0.0f;
        }
        #pragma unroll
        for (int kl_i = 0; kl_i < 4; ++kl_i) {
            int i = kl_k0 + kl_t / 64 + 4 * kl_i;
            int x = kl_c0 + kl_t % 64;
            kl_Bs[kl_t / 64 + 4 * kl_i][kl_t % 64] = i < kk && x < n ? b[i * ldb + x] : 0.0f;
        }
        __syncthreads();
        #pragma unroll
        for (int kl_kk = 0; kl_kk < 16; ++kl_kk) {
            float kl_a[4], kl_b[4];
            #pragma unroll
            for (int kl_i = 0; kl_i < 4; ++kl_i) kl_a[kl_i] = kl_As[kl_kk][threadIdx.y + 16 * kl_i];
            #pragma unroll
            for (int kl_j = 0; kl_j < 4; ++kl_j) kl_b[kl_j] = kl_Bs[kl_kk][threadIdx.x + 16 * kl_j];
            #pragma unroll
            for (int kl_i = 0; kl_i < 4; ++kl_i)
                #pragma unroll
                for (int kl_j = 0; kl_j < 4; ++kl_j) kl_acc[kl_i][kl_j] += kl_a[kl_i] * kl_b[kl_j];
        }
        __syncthreads();
    }
    #pragma unroll
    for (int kl_i = 0; kl_i < 4; ++kl_i)
        #pragma unroll
        for (int kl_j = 0; kl_j < 4; ++kl_j) {
            int y = kl_r0 + threadIdx.y + 16 * kl_i;
            int x = kl_c0 + threadIdx.x + 16 * kl_j;
            if (x < n && y < m) {
                float sum = kl_acc[kl_i][kl_j];
                c[y * ldc + x] = alpha * sum + beta * c[y * ldc + x];
            }
        }
}
