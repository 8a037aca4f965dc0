// golden: block_size=128 refuses="is not i + k + D"
// A decimating filter reads the input at 2 i + m: the window moves two slots per output.
__global__ void k(const float* x, const float* h, float* y, int n, int taps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 2) {
        float v = 0.0f;
        for (int m = 0; m < taps; ++m) {
            int s = 2 * i + m;
            if (s < n) v += x[s] * h[m];
        }
        y[i] = v;
    }
}
