// golden:
// A centered FIR with a run-time tap count, zero outside the signal through a conditional
// operator; the window's first index in a local before the loop, a long signal length.
__global__ void k(const float* in, const float* taps, float* out, long n, int ntaps)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long first = i - ntaps / 2;
    float acc = 0.0f;
    for (int t = 0; t < ntaps; t++) {
        long j = first + t;
        acc += taps[t] * ((j >= 0 && j < n) ? in[j] : 0.0f);
    }
    out[i] = acc;
}
