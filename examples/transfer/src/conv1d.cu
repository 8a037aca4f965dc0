// 1-D convolution (correlation form, centered, zero padding) of a long signal with a 31-tap filter:
// once with the taps in __constant__ memory, once with the taps behind a pointer.
#include "transfer/launch_utils.h"
#include "transfer/transfer.h"

#define KERNEL_RADIUS 15
#define KERNEL_LENGTH (2 * KERNEL_RADIUS + 1)

__constant__ float c_taps[KERNEL_LENGTH];

__global__ void conv1d_const_kernel(const float* __restrict__ signal, float* __restrict__ result, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n) return;

    float acc = 0.0f;
    for (int k = -KERNEL_RADIUS; k <= KERNEL_RADIUS; ++k) {
        int j = gid + k;
        if (j >= 0 && j < n)
            acc += signal[j] * c_taps[KERNEL_RADIUS + k];
    }
    result[gid] = acc;
}

void conv1d_constant(const float* d_in, float* d_out, const float* h_taps, int n)
{
    cudaMemcpyToSymbol(c_taps, h_taps, KERNEL_LENGTH * sizeof(float));
    const int threads = 256;
    conv1d_const_kernel<<<ceil_div(n, threads), threads>>>(d_in, d_out, n);
}

__global__ void conv1d_kernel(const float* in, const float* taps, float* out, int n, int ntaps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int r = ntaps / 2;
    if (i < n) {
        int start = i - r;
        float v = 0;
        for (int k = 0; k < ntaps; k++) {
            int j = start + k;
            if (j >= 0 && j < n)
                v += in[j] * taps[k];
        }
        out[i] = v;
    }
}

void conv1d(const float* d_in, const float* d_taps, float* d_out, int n, int ntaps)
{
    dim3 block(128);
    dim3 grid((n + block.x - 1) / block.x);
    conv1d_kernel<<<grid, block>>>(d_in, d_taps, d_out, n, ntaps);
}
