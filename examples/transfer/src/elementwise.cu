// Two streaming elementwise kernels: AXPY with a 64-bit index, and a scale + clamp into the finite
// fp16 range (the step before a float -> half conversion; the result stays float here).
#include "transfer/transfer.h"

__global__ void axpy_kernel(long n, float alpha, const float* __restrict__ x, float* __restrict__ y)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] += alpha * x[i];
}

void axpy(long n, float alpha, const float* x, float* y)
{
    const int threads = 512;
    const long blocks = (n + threads - 1) / threads;
    axpy_kernel<<<(unsigned int)blocks, threads>>>(n, alpha, x, y);
}

#define FP16_MAX 65504.0f

__global__ void scale_clip_kernel(const float* in, float* out, float scale, int n)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= n) return;

    float v = in[tid] * scale;
    v = fminf(fmaxf(v, -FP16_MAX), FP16_MAX);
    out[tid] = v;
}

void scale_clip_half_range(const float* in, float* out, float scale, int n)
{
    int blockSize = 256;
    int numBlocks = (n + blockSize - 1) / blockSize;
    scale_clip_kernel<<<numBlocks, blockSize>>>(in, out, scale, n);
}
