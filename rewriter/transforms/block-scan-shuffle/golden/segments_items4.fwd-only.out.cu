// golden: block_size=1024 items=4
// One block per segment of 1024 values, the textbook double buffer; with 4 items a thread the
// block shrinks to 256 threads, each loading, scanning and storing 4 consecutive elements.
__global__ void k(const float* src, float* dst, int len)
{
    extern __shared__ float buf[];
    int lane = threadIdx.x;
    const float* seg = src + (size_t)blockIdx.x * len;
    int a = 0, b = 1;
    float kl_items[4];  // 4 consecutive elements a thread, scanned in registers, then across the block
    #pragma unroll
    for (int kl_j = 0; kl_j < 4; ++kl_j) kl_items[kl_j] = seg[(4 * lane + kl_j)] * 0.5f;
    #pragma unroll
    for (int kl_j = 1; kl_j < 4; ++kl_j) kl_items[kl_j] += kl_items[kl_j - 1];
    {
        float kl_v = kl_items[3];
        for (int kl_o = 1; kl_o < 32; kl_o <<= 1) {
            float kl_t = __shfl_up_sync(0xffffffffu, kl_v, kl_o);
            if ((lane & 31) >= kl_o) kl_v += kl_t;
        }
        float kl_x = __shfl_up_sync(0xffffffffu, kl_v, 1);  // the totals of the warp's threads before this one
        if ((lane & 31) == 0) kl_x = (float)0;
        __shared__ float kl_warp[32];
        if ((lane & 31) == 31) kl_warp[lane >> 5] = kl_v;
        __syncthreads();
        if (lane < 32) {
            float kl_w = lane < (blockDim.x >> 5) ? kl_warp[lane] : (float)0;
            for (int kl_o = 1; kl_o < 32; kl_o <<= 1) {
                float kl_t = __shfl_up_sync(0xffffffffu, kl_w, kl_o);
                if (lane >= kl_o) kl_w += kl_t;
            }
            kl_warp[lane] = kl_w;
        }
        __syncthreads();
        if (lane >= 32) kl_x += kl_warp[(lane >> 5) - 1];
        if (lane > 0) {
            #pragma unroll
            for (int kl_j = 0; kl_j < 4; ++kl_j) kl_items[kl_j] += kl_x;
        }
    }
    #pragma unroll
    for (int kl_j = 0; kl_j < 4; ++kl_j) {
        dst[(size_t)blockIdx.x * len + (4 * lane + kl_j)] = kl_items[kl_j];
    }
}
