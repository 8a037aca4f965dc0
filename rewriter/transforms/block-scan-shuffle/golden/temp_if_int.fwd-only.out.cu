// An int scan with the temporary set under the guard, the block total written by the last thread.
__global__ void k(const int* counts, int* offsets, int* block_totals)
{
    __shared__ int s[512];
    unsigned int tid = threadIdx.x;
    unsigned int g = blockIdx.x * blockDim.x + tid;
    int kl_v = counts[g];  // the block's inclusive scan: warp shuffles, then one shared slot per warp
    {
        for (int kl_o = 1; kl_o < 32; kl_o <<= 1) {
            int kl_t = __shfl_up_sync(0xffffffffu, kl_v, kl_o);
            if ((tid & 31) >= kl_o) kl_v += kl_t;
        }
        __shared__ int kl_warp[32];
        if ((tid & 31) == 31) kl_warp[tid >> 5] = kl_v;
        __syncthreads();
        if (tid < 32) {
            int kl_w = tid < (blockDim.x >> 5) ? kl_warp[tid] : (int)0;
            for (int kl_o = 1; kl_o < 32; kl_o <<= 1) {
                int kl_t = __shfl_up_sync(0xffffffffu, kl_w, kl_o);
                if (tid >= kl_o) kl_w += kl_t;
            }
            kl_warp[tid] = kl_w;
        }
        __syncthreads();
        if (tid >= 32) kl_v += kl_warp[(tid >> 5) - 1];
    }
    offsets[g] = kl_v;
    if (tid == blockDim.x - 1) block_totals[blockIdx.x] = kl_v;
}
