// General matrix multiply, C = alpha * A * B + beta * C, row-major, one thread per element of C
// computing its dot product straight from global memory.
#include "transfer/transfer.h"

typedef float real_t;

__global__ void gemm_naive(size_t M, size_t N, size_t K, real_t alpha, const real_t* A,
                           const real_t* B, real_t beta, real_t* C)
{
    size_t i = blockIdx.y * blockDim.y + threadIdx.y;  // row of C
    size_t j = blockIdx.x * blockDim.x + threadIdx.x;  // column of C

    if (i < M && j < N) {
        real_t acc = 0;
        for (size_t p = 0; p < K; ++p)
            acc += A[i * K + p] * B[p * N + j];
        C[i * N + j] = alpha * acc + beta * C[i * N + j];
    }
}

void sgemm(size_t M, size_t N, size_t K, float alpha, const float* A, const float* B, float beta, float* C)
{
    dim3 block(32, 32);
    dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y);
    gemm_naive<<<grid, block>>>(M, N, K, alpha, A, B, beta, C);
}
