// golden: block_size=256 outputs=4
// Taps in __constant__ memory over -4..4, the tap written first in the product, 64-bit indices,
// and a scaled store after the loop.
__constant__ float c_w[9];
__global__ void k(const float* __restrict__ in, float* __restrict__ out, long n, float gain)
{
    long g = (long)blockIdx.x * blockDim.x + threadIdx.x;
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
