// golden: block=32x32
// A 32 x 32 naive launch: the tiled kernel is the same text; the launch gets grid / 2 and a 16 x 16 block.
// C = alpha * A * B + beta * C with leading dimensions of their own, restrict pointers, indented
// by four spaces: the accesses, the guard and the store are kept as written.
__global__ void k(int m, int n, int kk, float alpha, const float* __restrict__ a, int lda,
                  const float* __restrict__ b, int ldb, float beta, float* __restrict__ c, int ldc) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < n && y < m) {
        float sum = 0;
        for (int i = 0; i < kk; ++i) sum += a[y * lda + i] * b[i * ldb + x];
        c[y * ldc + x] = alpha * sum + beta * c[y * ldc + x];
    }
}
