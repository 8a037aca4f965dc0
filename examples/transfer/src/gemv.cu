// Matrix-vector product y = A x, row-major A, one thread per row of A.
#include "transfer/launch_utils.h"
#include "transfer/transfer.h"

using scalar_t = float;

__global__ void gemv_row_kernel(int m, int n, const scalar_t* __restrict__ A, const scalar_t* __restrict__ x,
                                scalar_t* __restrict__ y)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < m) {
        scalar_t dot = 0;
        for (int j = 0; j < n; ++j)
            dot += A[tid * n + j] * x[j];
        y[tid] = dot;
    }
}

void gemv(int m, int n, const float* A, const float* x, float* y)
{
    const int block = 256;
    gemv_row_kernel<<<ceil_div(m, block), block>>>(m, n, A, x, y);
}
