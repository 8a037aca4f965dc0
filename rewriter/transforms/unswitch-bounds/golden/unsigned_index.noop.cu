// golden: refuses="no bounds guard on a tap"
// size_t coordinates: `x + dx` wraps below zero instead of going negative, so the window's
// extremes do not bound its taps (x - 1 at x = 0 is the largest size_t, which the guard rejects).
__global__ void k(const float* in, float* out, size_t n)
{
    size_t x = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (x < n) {
        float s = 0.0f;
        for (int dx = -1; dx <= 1; ++dx) {
            size_t xx = x + dx;
            if (xx < n)
                s += in[xx];
        }
        out[x] = s;
    }
}
