// golden: block_size=256 outputs=4
// Taps in __constant__ memory over -4..4, the tap written first in the product, 64-bit indices,
// and a scaled store after the loop.
__constant__ float c_w[9];
__global__ void k(const float* __restrict__ in, float* __restrict__ out, long n, float gain)
{
    long g = (long)blockIdx.x * blockDim.x + threadIdx.x;
    // kl: the block's input window in shared memory; each thread computes 4 consecutive outputs, walking the taps once for all of them (a grid 4x smaller)
    const long long kl_span = (long long)(4) - (-4) + 1;
    const long long kl_b0 = ((long long)g - threadIdx.x) * 4;  // the block's first output
    const int kl_t = threadIdx.x * 4;
    if (kl_span >= 1 && kl_span <= 256) {  // the window fits
        __shared__ float kl_win[1024 + 256];
        const long long kl_first = kl_b0 + (-4);  // the input index of slot 0
        bool kl_full;  // every output of the block passes the guard and reads every slot it spans
        {
            long g = (long)(kl_b0 + 1023);
            kl_full = g < n;
        }
        for (int kl_x = threadIdx.x; kl_x < 1024 + kl_span; kl_x += 256) {
            // loaded where the original reads it: the first output reading the slot passes the guard, and C holds
            long g = (long)(kl_b0 + (kl_x >= kl_span ? kl_x - kl_span + 1 : 0));
            long src = (long)(kl_first + kl_x);
            const bool kl_read = (g < n) && (src >= 0 && src < n);
            kl_win[kl_x] = kl_read ? in[src] : (float)0;
            kl_full = kl_full && (kl_read || kl_x == 1024 + kl_span - 1);  // (the last slot only fills the window)
        }
        kl_full = __syncthreads_and(kl_full);
        float kl_acc[4];
        float kl_w[4];
#pragma unroll
        for (int kl_o = 0; kl_o < 4; ++kl_o) {
            kl_acc[kl_o] = 0.0f;
            kl_w[kl_o] = kl_win[kl_t + kl_o];
        }
        int kl_next = kl_t + 4;
        if (kl_full) {  // every term of every output is the original's: no test per term
            for (int d = -4; d <= 4; ++d) {
                const auto kl_tap = c_w[4 + d];  // W's own type, so each product is the user's
#pragma unroll
                for (int kl_o = 0; kl_o < 4; ++kl_o) kl_acc[kl_o] += kl_tap * kl_w[kl_o];
#pragma unroll
                for (int kl_o = 0; kl_o + 1 < 4; ++kl_o) kl_w[kl_o] = kl_w[kl_o + 1];
                kl_w[3] = kl_win[kl_next++];
            }
        } else {  // the block's edges: each term under the original's conditions
            for (int d = -4; d <= 4; ++d) {
                bool kl_in[4];
                bool kl_any = false;
#pragma unroll
                for (int kl_o = 0; kl_o < 4; ++kl_o) {
                    long g = (long)(kl_b0 + kl_t + kl_o);
                    long src = (long)(kl_first + kl_t + kl_o + (d - (-4)));
                    kl_in[kl_o] = (g < n) && (src >= 0 && src < n);
                    kl_any = kl_any || kl_in[kl_o];
                }
                if (kl_any) {  // the tap is read only where an output reads it
                    const auto kl_tap = c_w[4 + d];
#pragma unroll
                    for (int kl_o = 0; kl_o < 4; ++kl_o)
                        if (kl_in[kl_o]) kl_acc[kl_o] += kl_tap * kl_w[kl_o];
                }
#pragma unroll
                for (int kl_o = 0; kl_o + 1 < 4; ++kl_o) kl_w[kl_o] = kl_w[kl_o + 1];
                kl_w[3] = kl_win[kl_next++];
            }
        }
#pragma unroll
        for (int kl_o = 0; kl_o < 4; ++kl_o) {
            long g = (long)(kl_b0 + kl_t + kl_o);
            if (g < n) {
                float a = 0.0f;
                a = kl_acc[kl_o];
                out[g] = gain * a;
            }
        }
    } else {  // each output runs the loop as written
        for (int kl_o = 0; kl_o < 4; ++kl_o) {
            long g = (long)(kl_b0 + kl_t + kl_o);
            if (g < n) {
                float a = 0.0f;
                for (int d = -4; d <= 4; ++d) {
                    long src = g + d;
                    if (src >= 0 && src < n) {
                        a += c_w[4 + d] * in[src];
                    }
                }
                out[g] = gain * a;
            }
        }
    }
}
