// Fused epilogue of a transformer sub-layer: add the bias (broadcast over rows) and the residual
// stream in one pass. One block row per matrix row.
#include "transfer/launch_utils.h"
#include "transfer/transfer.h"

__global__ void bias_residual_add_kernel(float* out, const float* inp, const float* bias,
                                         const float* residual, int rows, int cols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y;
    if (row < rows && col < cols) {
        int i = row * cols + col;
        out[i] = inp[i] + bias[col] + residual[i];
    }
}

void add_bias_residual(float* out, const float* inp, const float* bias, const float* residual, int rows, int cols)
{
    const int threads = 256;
    dim3 grid(ceil_div(cols, threads), rows);
    bias_residual_add_kernel<<<grid, threads>>>(out, inp, bias, residual, rows, cols);
}
