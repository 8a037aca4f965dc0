// golden: block_size=256 coarsen=16
// An int maximum with INT_MIN padding and interleaved addressing, `unsigned int` indices, the
// bound written first; one atomicMax per block.
#include <climits>
#define BLOCK_SIZE 256
__global__ void k(const int* data, int* out, unsigned int n)
{
    __shared__ int smax[BLOCK_SIZE];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    {  // kl: each thread first reduces its elements i, i + blockDim.x * gridDim.x, ... (a grid 16x smaller)
        int kl_acc = INT_MIN;
        for (unsigned int kl_i = i; kl_i < n; kl_i += blockDim.x * gridDim.x) kl_acc = max(kl_acc, data[kl_i]);
        smax[t] = kl_acc;
    }
    __syncthreads();
    {  // the tree as warp shuffles, then one shared slot per warp
        int kl_v = smax[t];
        for (int kl_o = 16; kl_o > 0; kl_o >>= 1) kl_v = max(kl_v, __shfl_down_sync(0xffffffffu, kl_v, kl_o));
        __shared__ int kl_warp[32];
        if ((t & 31) == 0) kl_warp[t >> 5] = kl_v;
        __syncthreads();
        if (t < 32) {
            kl_v = t < (blockDim.x >> 5) ? kl_warp[t] : kl_warp[0];
            for (int kl_o = 16; kl_o > 0; kl_o >>= 1) kl_v = max(kl_v, __shfl_down_sync(0xffffffffu, kl_v, kl_o));
            if (t == 0) smax[0] = kl_v;
        }
        __syncthreads();
    }
    if (t == 0) atomicMax(out, smax[0]);
}
