// Discrete Laplacian with the 5-point stencil on a uniform grid; the boundary rows and columns of
// the result are set to zero.
#include "transfer/transfer.h"

#define IDX(row, col, ld) ((row) * (ld) + (col))
#define DIV_UP(a, b) (((a) + (b) - 1) / (b))

__global__ void laplacian5(const float* in, float* out, int nx, int ny, float inv_h2)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;

    if (row < ny && col < nx) {
        if (row == 0 || row == ny - 1 || col == 0 || col == nx - 1) {
            out[IDX(row, col, nx)] = 0.0f;
        } else {
            float center = in[IDX(row, col, nx)];
            float sum = in[IDX(row - 1, col, nx)] + in[IDX(row + 1, col, nx)]
                      + in[IDX(row, col - 1, nx)] + in[IDX(row, col + 1, nx)];
            out[IDX(row, col, nx)] = (sum - 4.0f * center) * inv_h2;
        }
    }
}

void laplacian_2d(const float* d_in, float* d_out, int nx, int ny, float inv_h2)
{
    dim3 block(16, 16);
    dim3 grid(DIV_UP(nx, 16), DIV_UP(ny, 16));
    laplacian5<<<grid, block>>>(d_in, d_out, nx, ny, inv_h2);
}
