// The textbook's Kogge-Stone spelling: the store under an if/else, the barrier first in the loop,
// the temporary holding the sum, the update guarded; the block total kept by the last thread.
#define SECTION 512
__global__ void k(const float* x, float* y, float* totals, unsigned int n)
{
    __shared__ float xy[SECTION];
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    float kl_v = (i < n) ? x[i] : 0.0f;  // the block's inclusive scan: warp shuffles, then one shared slot per warp
    {
        for (int kl_o = 1; kl_o < 32; kl_o <<= 1) {
            float kl_t = __shfl_up_sync(0xffffffffu, kl_v, kl_o);
            if ((threadIdx.x & 31) >= kl_o) kl_v += kl_t;
        }
        __shared__ float kl_warp[32];
        if ((threadIdx.x & 31) == 31) kl_warp[threadIdx.x >> 5] = kl_v;
        __syncthreads();
        if (threadIdx.x < 32) {
            float kl_w = threadIdx.x < (blockDim.x >> 5) ? kl_warp[threadIdx.x] : (float)0;
            for (int kl_o = 1; kl_o < 32; kl_o <<= 1) {
                float kl_t = __shfl_up_sync(0xffffffffu, kl_w, kl_o);
                if (threadIdx.x >= kl_o) kl_w += kl_t;
            }
            kl_warp[threadIdx.x] = kl_w;
        }
        __syncthreads();
        if (threadIdx.x >= 32) kl_v += kl_warp[(threadIdx.x >> 5) - 1];
    }
    if (i < n) y[i] = kl_v;
    if (threadIdx.x == blockDim.x - 1) totals[blockIdx.x] = kl_v;
}
