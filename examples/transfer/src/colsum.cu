// Sum of each column of a row-major matrix: one thread per column walks down its column with a
// pointer that advances one row at a time.
#include "transfer/transfer.h"

__global__ void column_sums(const float* m, float* sums, int height, int width)
{
    unsigned int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col < width) {
        const float* p = m + col;
        float s = 0.f;
        for (int r = 0; r < height; ++r) {
            s += *p;
            p += width;
        }
        sums[col] = s;
    }
}

void column_sum(const float* d_m, float* d_sums, int height, int width)
{
    column_sums<<<(width + 127) / 128, 128>>>(d_m, d_sums, height, width);
}
