// golden: block_size=128
// The temporary starts as the thread's own slot and adds the other one; the bound is `<=`.
__global__ void k(int* out, const int* in, unsigned int half)
{
    extern __shared__ int data[];
    unsigned int lid = threadIdx.x;
    int kl_v = in[blockIdx.x * blockDim.x + lid];  // the block's inclusive scan: warp shuffles, then one shared slot per warp
    {
        for (int kl_o = 1; kl_o < 32; kl_o <<= 1) {
            int kl_t = __shfl_up_sync(0xffffffffu, kl_v, kl_o);
            if ((lid & 31) >= kl_o) kl_v += kl_t;
        }
        __shared__ int kl_warp[32];
        if ((lid & 31) == 31) kl_warp[lid >> 5] = kl_v;
        __syncthreads();
        if (lid < 32) {
            int kl_w = lid < (blockDim.x >> 5) ? kl_warp[lid] : (int)0;
            for (int kl_o = 1; kl_o < 32; kl_o <<= 1) {
                int kl_t = __shfl_up_sync(0xffffffffu, kl_w, kl_o);
                if (lid >= kl_o) kl_w += kl_t;
            }
            kl_warp[lid] = kl_w;
        }
        __syncthreads();
        if (lid >= 32) kl_v += kl_warp[(lid >> 5) - 1];
    }
    out[blockIdx.x * blockDim.x + lid] = kl_v;
}
