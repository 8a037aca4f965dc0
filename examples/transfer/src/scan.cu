// Inclusive scan of fixed-length segments, Hillis-Steele style: one block per segment, one thread
// per element, two shared-memory buffers that swap roles after every step.
#include "transfer/transfer.h"

__global__ void scan_segments_hs(const float* g_in, float* g_out, int seg_len)
{
    extern __shared__ float temp[];  // 2 * seg_len floats

    int thid = threadIdx.x;
    const float* in = g_in + (size_t)blockIdx.x * seg_len;
    float* out = g_out + (size_t)blockIdx.x * seg_len;

    int pout = 0, pin = 1;
    temp[pout * seg_len + thid] = in[thid];
    __syncthreads();

    for (int offset = 1; offset < seg_len; offset *= 2) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (thid >= offset)
            temp[pout * seg_len + thid] = temp[pin * seg_len + thid] + temp[pin * seg_len + thid - offset];
        else
            temp[pout * seg_len + thid] = temp[pin * seg_len + thid];
        __syncthreads();
    }

    out[thid] = temp[pout * seg_len + thid];
}

void scan_segments_inclusive(const float* d_in, float* d_out, int num_segments, int seg_len)
{
    size_t shmem = 2 * seg_len * sizeof(float);
    scan_segments_hs<<<num_segments, seg_len, shmem>>>(d_in, d_out, seg_len);
}
