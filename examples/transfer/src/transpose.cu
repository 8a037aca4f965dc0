// Out-of-place transpose, one element per thread. Reads are coalesced along a row of the input;
// writes land `h` floats apart.
#include "transfer/launch_utils.h"
#include "transfer/transfer.h"

__global__ void transpose_naive_kernel(float* odata, const float* idata, int w, int h)
{
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;

    odata[x * h + y] = idata[y * w + x];
}

void transpose(float* d_out, const float* d_in, int width, int height)
{
    dim3 threads(32, 8);
    dim3 blocks(ceil_div(width, threads.x), ceil_div(height, threads.y));
    transpose_naive_kernel<<<blocks, threads>>>(d_out, d_in, width, height);
}
