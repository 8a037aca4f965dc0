// Gather through an index array: dst[i] = src[idx[i]].
#include "transfer/transfer.h"

__global__ void gather_kernel(float* __restrict__ dst, const float* __restrict__ src,
                              const int* __restrict__ idx, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dst[i] = src[idx[i]];
}

void gather(float* d_dst, const float* d_src, const int* d_idx, size_t n)
{
    const unsigned int threads = 256;
    const unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    gather_kernel<<<blocks, threads>>>(d_dst, d_src, d_idx, n);
}
