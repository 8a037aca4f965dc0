// golden: block_size=128 unroll=4
// The pointer walk with the split loop unrolled 4: four rows' loads in flight per thread.
// A pointer that walks down the column one row per iteration, the sum squared into a second output.
__global__ void k(const float* m, float* sums, float* sq, int height, int ld)
{
    unsigned int j = blockIdx.x * blockDim.x + threadIdx.x;
    __shared__ float kl_part[32][33];  // the column's rows split over threadIdx.y, the parts added here
    float kl_s = 0;
    if (j < ld) {
        const float* q = m + j;
        float t = 0.f;
        q += (size_t)threadIdx.y * (ld);
        #pragma unroll 4
        for (int i = threadIdx.y; i < height; i += blockDim.y) {
            t += *q * *q;
            q += (size_t)blockDim.y * (ld);
        }
        kl_s = t;
    }
    kl_part[threadIdx.y][threadIdx.x] = kl_s;
    __syncthreads();
    if (threadIdx.y == 0 && j < ld) {
        float t = kl_s;
        for (unsigned int kl_r = 1; kl_r < blockDim.y; ++kl_r) t += kl_part[kl_r][threadIdx.x];
        sums[j] = t;
        sq[j] = t * t;
    }
}
