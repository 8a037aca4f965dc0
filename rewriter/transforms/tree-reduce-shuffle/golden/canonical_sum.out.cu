// The tree in the form the inverse writes: forward and inverse round-trip.
__global__ void k(const float* in, float* out, int n)
{
    __shared__ float s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    {  // the tree as warp shuffles, then one shared slot per warp
        float kl_v = s[threadIdx.x];
        for (int kl_o = 16; kl_o > 0; kl_o >>= 1) kl_v += __shfl_down_sync(0xffffffffu, kl_v, kl_o);
        __shared__ float kl_warp[32];
        if ((threadIdx.x & 31) == 0) kl_warp[threadIdx.x >> 5] = kl_v;
        __syncthreads();
        if (threadIdx.x < 32) {
            kl_v = threadIdx.x < (blockDim.x >> 5) ? kl_warp[threadIdx.x] : (float)0;
            for (int kl_o = 16; kl_o > 0; kl_o >>= 1) kl_v += __shfl_down_sync(0xffffffffu, kl_v, kl_o);
            if (threadIdx.x == 0) s[0] = kl_v;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, s[0]);
}
