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
