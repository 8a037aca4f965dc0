// A template over the element type, the index spelled threadIdx.x, the sum written out.
template <typename T>
__global__ void k(const T* __restrict__ in, T* __restrict__ out, unsigned long n)
{
    __shared__ T partial[256];
    T acc = T(0);
    for (unsigned long i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (unsigned long)blockDim.x * gridDim.x)
        acc += in[i];
    partial[threadIdx.x] = acc;
    __syncthreads();
    {  // the tree as warp shuffles, then one shared slot per warp
        T kl_v = partial[threadIdx.x];
        for (int kl_o = 16; kl_o > 0; kl_o >>= 1) kl_v += __shfl_down_sync(0xffffffffu, kl_v, kl_o);
        __shared__ T kl_warp[32];
        if ((threadIdx.x & 31) == 0) kl_warp[threadIdx.x >> 5] = kl_v;
        __syncthreads();
        if (threadIdx.x < 32) {
            kl_v = threadIdx.x < (blockDim.x >> 5) ? kl_warp[threadIdx.x] : (T)0;
            for (int kl_o = 16; kl_o > 0; kl_o >>= 1) kl_v += __shfl_down_sync(0xffffffffu, kl_v, kl_o);
            if (threadIdx.x == 0) partial[0] = kl_v;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(out, partial[0]);
}
template __global__ void k<float>(const float*, float*, unsigned long);
