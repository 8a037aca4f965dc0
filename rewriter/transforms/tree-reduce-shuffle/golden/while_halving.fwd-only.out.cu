// The stride as a local halved in a while loop; grid-stride sums before the tree.
__global__ void k(int N, const float* a, const float* b, float* c)
{
    __shared__ float cache[256];
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    int cacheIndex = threadIdx.x;
    float temp = 0;
    while (tid < N) {
        temp += a[tid] * b[tid];
        tid += blockDim.x * gridDim.x;
    }
    cache[cacheIndex] = temp;
    __syncthreads();
    {  // the tree as warp shuffles, then one shared slot per warp
        float kl_v = cache[cacheIndex];
        for (int kl_o = 16; kl_o > 0; kl_o >>= 1) kl_v += __shfl_down_sync(0xffffffffu, kl_v, kl_o);
        __shared__ float kl_warp[32];
        if ((cacheIndex & 31) == 0) kl_warp[cacheIndex >> 5] = kl_v;
        __syncthreads();
        if (cacheIndex < 32) {
            kl_v = cacheIndex < (blockDim.x >> 5) ? kl_warp[cacheIndex] : (float)0;
            for (int kl_o = 16; kl_o > 0; kl_o >>= 1) kl_v += __shfl_down_sync(0xffffffffu, kl_v, kl_o);
            if (cacheIndex == 0) cache[0] = kl_v;
        }
        __syncthreads();
    }
    if (cacheIndex == 0)
        atomicAdd(c, cache[0]);
}
