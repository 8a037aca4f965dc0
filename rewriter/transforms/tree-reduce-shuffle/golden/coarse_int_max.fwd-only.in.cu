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
    smax[t] = (n > i) ? data[i] : INT_MIN;
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (t % (2 * s) == 0)
            smax[t] = max(smax[t], smax[t + s]);
        __syncthreads();
    }
    if (t == 0) atomicMax(out, smax[0]);
}
