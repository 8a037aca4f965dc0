// golden: block_size=256 coarsen=8
// One element per thread into an extern shared array, the tree, one atomicAdd per block: each
// thread first sums a grid-stride run of elements, so the grid is 8x smaller.
__global__ void k(const float* input, float* result, int n)
{
    extern __shared__ float sdata[];
    unsigned int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    {  // kl: each thread first reduces its elements gid, gid + blockDim.x * gridDim.x, ... (a grid 8x smaller)
        float kl_acc = 0.0f;
        for (int kl_i = gid; kl_i < n; kl_i += blockDim.x * gridDim.x) kl_acc += input[kl_i];
        sdata[tid] = kl_acc;
    }
    __syncthreads();
    {  // the tree as warp shuffles, then one shared slot per warp
        float kl_v = sdata[tid];
        for (int kl_o = 16; kl_o > 0; kl_o >>= 1) kl_v += __shfl_down_sync(0xffffffffu, kl_v, kl_o);
        __shared__ float kl_warp[32];
        if ((tid & 31) == 0) kl_warp[tid >> 5] = kl_v;
        __syncthreads();
        if (tid < 32) {
            kl_v = tid < (blockDim.x >> 5) ? kl_warp[tid] : (float)0;
            for (int kl_o = 16; kl_o > 0; kl_o >>= 1) kl_v += __shfl_down_sync(0xffffffffu, kl_v, kl_o);
            if (tid == 0) sdata[0] = kl_v;
        }
        __syncthreads();
    }
    if (tid == 0)
        atomicAdd(result, sdata[0]);
}
