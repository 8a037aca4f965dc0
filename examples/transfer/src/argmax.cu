// Row-wise maximum and its position, one thread per row: two outputs per row.
#include "transfer/transfer.h"

template <typename T>
static T div_up(T a, T b) { return (a + b - 1) / b; }

__global__ void row_max_argmax(const float* __restrict__ data, float* __restrict__ max_out,
                               int* __restrict__ idx_out, int nrows, int ncols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= nrows)
        return;

    size_t offset = (size_t)row * ncols;
    float best = data[offset];
    int best_j = 0;
    for (int j = 1; j < ncols; j++) {
        float v = data[offset + j];
        if (v > best) {  // strict: ties keep the first column
            best = v;
            best_j = j;
        }
    }
    max_out[row] = best;
    idx_out[row] = best_j;
}

void row_argmax(const float* d_data, float* d_max, int* d_idx, int nrows, int ncols)
{
    const int block = 128;
    row_max_argmax<<<div_up(nrows, block), block>>>(d_data, d_max, d_idx, nrows, ncols);
}
