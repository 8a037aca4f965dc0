// golden: block_size=512
__global__ void k(const float* in, float* partial, int n)
{
    __shared__ float m[512];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + t;
    m[t] = i < n ? in[i] : -3.0e38f;
    __syncthreads();
    {  // the tree as warp shuffles, then one shared slot per warp
        float kl_v = m[t];
        for (int kl_o = 16; kl_o > 0; kl_o >>= 1) kl_v = fmaxf(kl_v, __shfl_down_sync(0xffffffffu, kl_v, kl_o));
        __shared__ float kl_warp[32];
        if ((t & 31) == 0) kl_warp[t >> 5] = kl_v;
        __syncthreads();
        if (t < 32) {
            kl_v = t < (blockDim.x >> 5) ? kl_warp[t] : kl_warp[0];
            for (int kl_o = 16; kl_o > 0; kl_o >>= 1) kl_v = fmaxf(kl_v, __shfl_down_sync(0xffffffffu, kl_v, kl_o));
            if (t == 0) m[0] = kl_v;
        }
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = m[0];
}
