// The textbook's Kogge-Stone spelling: the store under an if/else, the barrier first in the loop,
// the temporary holding the sum, the update guarded; the block total kept by the last thread.
#define SECTION 512
__global__ void k(const float* x, float* y, float* totals, unsigned int n)
{
    __shared__ float xy[SECTION];
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        xy[threadIdx.x] = x[i];
    else
        xy[threadIdx.x] = 0.0f;
    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        __syncthreads();
        float sum;
        if (threadIdx.x >= stride)
            sum = xy[threadIdx.x] + xy[threadIdx.x - stride];
        __syncthreads();
        if (threadIdx.x >= stride)
            xy[threadIdx.x] = sum;
    }
    if (i < n) y[i] = xy[threadIdx.x];
    if (threadIdx.x == blockDim.x - 1) totals[blockIdx.x] = xy[threadIdx.x];
}
