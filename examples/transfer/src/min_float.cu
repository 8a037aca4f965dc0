// Minimum of a float array in two launches: each block reduces 2 * MIN_THREADS elements to one
// partial minimum, then a single block reduces the partials.
#include <cfloat>

#include "transfer/transfer.h"

#define MIN_THREADS 512

__global__ void min_partial_kernel(const float* __restrict__ x, float* __restrict__ partial, int n)
{
    __shared__ float smin[MIN_THREADS];

    int t = threadIdx.x;
    int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;

    // first step of the reduction while loading: two elements per thread
    float v = FLT_MAX;
    if (i < n) v = x[i];
    if (i + blockDim.x < n) v = fminf(v, x[i + blockDim.x]);
    smin[t] = v;
    __syncthreads();

    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride)
            smin[t] = fminf(smin[t], smin[t + stride]);
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = smin[0];
}

__global__ void min_final_kernel(const float* __restrict__ partial, float* __restrict__ out, int count)
{
    __shared__ float smin[MIN_THREADS];

    int t = threadIdx.x;
    float v = FLT_MAX;
    for (int j = t; j < count; j += blockDim.x)
        v = fminf(v, partial[j]);
    smin[t] = v;
    __syncthreads();

    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride)
            smin[t] = fminf(smin[t], smin[t + stride]);
        __syncthreads();
    }
    if (t == 0) *out = smin[0];
}

int min_float_workspace(int n) { return (n + 2 * MIN_THREADS - 1) / (2 * MIN_THREADS); }

void min_float(const float* d_x, float* d_partial, float* d_min, int n)
{
    int blocks = min_float_workspace(n);
    min_partial_kernel<<<blocks, MIN_THREADS>>>(d_x, d_partial, n);
    min_final_kernel<<<1, MIN_THREADS>>>(d_partial, d_min, blocks);
}
