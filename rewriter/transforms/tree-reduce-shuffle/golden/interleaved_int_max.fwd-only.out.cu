// Interleaved addressing (a modulo picks the active threads), int max, one atomicMax per block.
__global__ void k(const int* g_idata, int* g_max, unsigned int n)
{
    __shared__ int sdata[256];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : -2147483647;
    __syncthreads();
    {  // the tree as warp shuffles, then one shared slot per warp
        int kl_v = sdata[tid];
        for (int kl_o = 16; kl_o > 0; kl_o >>= 1) kl_v = max(kl_v, __shfl_down_sync(0xffffffffu, kl_v, kl_o));
        __shared__ int kl_warp[32];
        if ((tid & 31) == 0) kl_warp[tid >> 5] = kl_v;
        __syncthreads();
        if (tid < 32) {
            kl_v = tid < (blockDim.x >> 5) ? kl_warp[tid] : kl_warp[0];
            for (int kl_o = 16; kl_o > 0; kl_o >>= 1) kl_v = max(kl_v, __shfl_down_sync(0xffffffffu, kl_v, kl_o));
            if (tid == 0) sdata[0] = kl_v;
        }
        __syncthreads();
    }
    if (tid == 0)
        atomicMax(g_max, sdata[0]);
}
