// Interleaved addressing (a modulo picks the active threads), int max, one atomicMax per block.
__global__ void k(const int* g_idata, int* g_max, unsigned int n)
{
    __shared__ int sdata[256];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : -2147483647;
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] = max(sdata[tid], sdata[tid + s]);
        __syncthreads();
    }
    if (tid == 0)
        atomicMax(g_max, sdata[0]);
}
