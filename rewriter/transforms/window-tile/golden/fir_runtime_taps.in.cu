// golden: block_size=128 outputs=8
// A centered FIR filter with a run-time tap count, zero outside the signal: the half width in a
// local before the guard, the window's first index in a local inside it.
__global__ void k(const float* x, const float* h, float* y, int len, int taps)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int half = taps / 2;
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
