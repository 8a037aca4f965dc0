// golden: block_size=128 coarsen=4
// The loaded value is a product of two inputs (a dot product written one element per thread).
__global__ void k(int n, const double* a, const double* b, double* dot)
{
    __shared__ double cache[128];
    int tid = threadIdx.x;
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    {  // kl: each thread first reduces its elements i, i + blockDim.x * gridDim.x, ... (a grid 4x smaller)
        double kl_acc = 0.0;
        for (long kl_i = i; kl_i < n; kl_i += blockDim.x * gridDim.x) kl_acc += a[kl_i] * b[kl_i];
        cache[tid] = kl_acc;
    }
    __syncthreads();
    {  // the tree as warp shuffles, then one shared slot per warp
        double kl_v = cache[tid];
        for (int kl_o = 16; kl_o > 0; kl_o >>= 1) kl_v += __shfl_down_sync(0xffffffffu, kl_v, kl_o);
        __shared__ double kl_warp[32];
        if ((tid & 31) == 0) kl_warp[tid >> 5] = kl_v;
        __syncthreads();
        if (tid < 32) {
            kl_v = tid < (blockDim.x >> 5) ? kl_warp[tid] : (double)0;
            for (int kl_o = 16; kl_o > 0; kl_o >>= 1) kl_v += __shfl_down_sync(0xffffffffu, kl_v, kl_o);
            if (tid == 0) cache[0] = kl_v;
        }
        __syncthreads();
    }
    if (tid == 0) atomicAdd(dot, cache[0]);
}
