// golden: block_size=128 refuses="the tap W reads"
// The tap depends on the output (a polyphase filter): not the same for every thread.
__global__ void k(const float* x, const float* h, float* y, int n, int taps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = 0.0f;
        for (int m = 0; m < taps; ++m) {
            int s = i + m;
            if (s < n) v += x[s] * h[(i % 4) * taps + m];
        }
        y[i] = v;
    }
}
