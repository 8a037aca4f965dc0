// golden: block_size=128 unroll=4
// The pointer walk with the split loop unrolled 4: four rows' loads in flight per thread.
// A pointer that walks down the column one row per iteration, the sum squared into a second output.
__global__ void k(const float* m, float* sums, float* sq, int height, int ld)
{
    unsigned int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < ld) {
        const float* q = m + j;
        float t = 0.f;
        for (int i = 0; i < height; ++i) {
            t += *q * *q;
            q += ld;
        }
        sums[j] = t;
        sq[j] = t * t;
    }
}
