// Maximum of an int array: the "interleaved addressing" block reduction (a modulo picks the active
// threads), then one atomicMax per block into the global result.
#include <climits>

#include "transfer/transfer.h"

#define BLOCK_SIZE 256

__global__ void reduce_max_int(const int* g_idata, int* g_max, unsigned int n)
{
    __shared__ int sdata[BLOCK_SIZE];

    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : INT_MIN;
    __syncthreads();

    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] = max(sdata[tid], sdata[tid + s]);
        __syncthreads();
    }

    if (tid == 0)
        atomicMax(g_max, sdata[0]);
}

void max_int(const int* d_data, int* d_max, unsigned int n)
{
    const int init = INT_MIN;
    cudaMemcpy(d_max, &init, sizeof(int), cudaMemcpyHostToDevice);

    dim3 block(BLOCK_SIZE);
    dim3 grid((n + BLOCK_SIZE - 1) / BLOCK_SIZE);
    reduce_max_int<<<grid, block>>>(d_data, d_max, n);
}
