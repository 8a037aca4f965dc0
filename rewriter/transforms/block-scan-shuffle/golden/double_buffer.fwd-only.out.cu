// The textbook double buffer: one block per row of `width` values, the buffers' roles swapped by
// integer bookkeeping each step, the result read from the last buffer written.
__global__ void k(const float* src, float* dst, int width)
{
    extern __shared__ float buf[];
    int t = threadIdx.x;
    const float* row_in = src + (size_t)blockIdx.x * width;
    int cur = 0, prev = 1;
    float kl_v = row_in[t];  // the block's inclusive scan: warp shuffles, then one shared slot per warp
    {
        for (int kl_o = 1; kl_o < 32; kl_o <<= 1) {
            float kl_t = __shfl_up_sync(0xffffffffu, kl_v, kl_o);
            if ((t & 31) >= kl_o) kl_v += kl_t;
        }
        __shared__ float kl_warp[32];
        if ((t & 31) == 31) kl_warp[t >> 5] = kl_v;
        __syncthreads();
        if (t < 32) {
            float kl_w = t < (blockDim.x >> 5) ? kl_warp[t] : (float)0;
            for (int kl_o = 1; kl_o < 32; kl_o <<= 1) {
                float kl_t = __shfl_up_sync(0xffffffffu, kl_w, kl_o);
                if (t >= kl_o) kl_w += kl_t;
            }
            kl_warp[t] = kl_w;
        }
        __syncthreads();
        if (t >= 32) kl_v += kl_warp[(t >> 5) - 1];
    }
    dst[(size_t)blockIdx.x * width + t] = kl_v;
}
