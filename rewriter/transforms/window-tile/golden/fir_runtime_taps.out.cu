// golden: block_size=128 outputs=8
// A centered FIR filter with a run-time tap count, zero outside the signal: the half width in a
// local before the guard, the window's first index in a local inside it.
__global__ void k(const float* x, const float* h, float* y, int len, int taps)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int half = taps / 2;
    // kl: the block's input window in shared memory; each thread computes 8 consecutive outputs, walking the taps once for all of them (a grid 8x smaller)
    const long long kl_span = (long long)(taps) - (0);
    const long long kl_b0 = ((long long)t - threadIdx.x) * 8;  // the block's first output
    const int kl_t = threadIdx.x * 8;
    if (kl_span >= 1 && kl_span <= 256) {  // the window fits
        __shared__ float kl_win[1024 + 256];
        const long long kl_first = kl_b0 + (0) + -(half);  // the input index of slot 0
        bool kl_full;  // every output of the block passes the guard and reads every slot it spans
        {
            int t = (int)(kl_b0 + 1023);
            kl_full = t < len;
        }
        for (int kl_x = threadIdx.x; kl_x < 1024 + kl_span; kl_x += 128) {
            // loaded where the original reads it: the first output reading the slot passes the guard, and C holds
            int t = (int)(kl_b0 + (kl_x >= kl_span ? kl_x - kl_span + 1 : 0));
            int s = (int)(kl_first + kl_x);
            const bool kl_read = (t < len) && (s >= 0 && s < len);
            kl_win[kl_x] = kl_read ? x[s] : (float)0;
            kl_full = kl_full && (kl_read || kl_x == 1024 + kl_span - 1);  // (the last slot only fills the window)
        }
        kl_full = __syncthreads_and(kl_full);
        float kl_acc[8];
        float kl_w[8];
#pragma unroll
        for (int kl_o = 0; kl_o < 8; ++kl_o) {
            kl_acc[kl_o] = 0.0f;
            kl_w[kl_o] = kl_win[kl_t + kl_o];
        }
        int kl_next = kl_t + 8;
        if (kl_full) {  // every term of every output is the original's: no test per term
            for (int m = 0; m < taps; m++) {
                const auto kl_tap = h[m];  // W's own type, so each product is the user's
#pragma unroll
                for (int kl_o = 0; kl_o < 8; ++kl_o) kl_acc[kl_o] += kl_w[kl_o] * kl_tap;
#pragma unroll
                for (int kl_o = 0; kl_o + 1 < 8; ++kl_o) kl_w[kl_o] = kl_w[kl_o + 1];
                kl_w[7] = kl_win[kl_next++];
            }
        } else {  // the block's edges: each term under the original's conditions
            for (int m = 0; m < taps; m++) {
                bool kl_in[8];
                bool kl_any = false;
#pragma unroll
                for (int kl_o = 0; kl_o < 8; ++kl_o) {
                    int t = (int)(kl_b0 + kl_t + kl_o);
                    int s = (int)(kl_first + kl_t + kl_o + (m - (0)));
                    kl_in[kl_o] = (t < len) && (s >= 0 && s < len);
                    kl_any = kl_any || kl_in[kl_o];
                }
                if (kl_any) {  // the tap is read only where an output reads it
                    const auto kl_tap = h[m];
#pragma unroll
                    for (int kl_o = 0; kl_o < 8; ++kl_o)
                        if (kl_in[kl_o]) kl_acc[kl_o] += kl_w[kl_o] * kl_tap;
                }
#pragma unroll
                for (int kl_o = 0; kl_o + 1 < 8; ++kl_o) kl_w[kl_o] = kl_w[kl_o + 1];
                kl_w[7] = kl_win[kl_next++];
            }
        }
#pragma unroll
        for (int kl_o = 0; kl_o < 8; ++kl_o) {
            int t = (int)(kl_b0 + kl_t + kl_o);
            if (t < len) {
                int first = t - half;
                float sum = 0.0f;
                sum = kl_acc[kl_o];
                y[t] = sum;
            }
        }
    } else {  // each output runs the loop as written
        for (int kl_o = 0; kl_o < 8; ++kl_o) {
            int t = (int)(kl_b0 + kl_t + kl_o);
            if (t < len) {
                int first = t - half;
                float sum = 0.0f;
                for (int m = 0; m < taps; m++) {
                    int s = first + m;
                    if (s >= 0 && s < len)
                        sum += x[s] * h[m];
                }
                y[t] = sum;
            }
        }
    }
}
