// golden: block_size=128 refuses="not guarded by a condition"
// A valid-mode correlation that trusts the caller's sizes: no condition on the read.
__global__ void k(const float* x, const float* h, float* y, int outlen, int taps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < outlen) {
        float v = 0.0f;
        for (int m = 0; m < taps; ++m) {
            int s = i + m;
            v += x[s] * h[m];
        }
        y[i] = v;
    }
}
