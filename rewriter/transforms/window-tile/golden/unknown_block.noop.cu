// golden: block_size=none refuses="not known"
// The window's size needs the block every launch uses.
__global__ void k(const float* x, const float* h, float* y, int n, int taps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = 0.0f;
        for (int m = 0; m < taps; ++m) {
            int s = i + m;
            if (s < n) v += x[s] * h[m];
        }
        y[i] = v;
    }
}
