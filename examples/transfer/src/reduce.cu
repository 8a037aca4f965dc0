// Float sum and dot product with a shared-memory tree per block and one atomicAdd per block.
#include <algorithm>

#include "transfer/launch_utils.h"
#include "transfer/transfer.h"

// One element per thread; the tree halves the active threads each step (sequential addressing).
// The shared array is sized at launch: blockDim.x floats.
__global__ void block_reduce_sum(const float* input, float* result, int n)
{
    extern __shared__ float sdata[];

    unsigned int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + threadIdx.x;

    sdata[tid] = (gid < n) ? input[gid] : 0.0f;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid == 0)
        atomicAdd(result, sdata[0]);
}

void reduce_sum(const float* d_in, float* d_out, int n, int block_size)
{
    cudaMemset(d_out, 0, sizeof(float));
    int grid = ceil_div(n, block_size);
    block_reduce_sum<<<grid, block_size, block_size * sizeof(float)>>>(d_in, d_out, n);
}

#define THREADS_PER_BLOCK 256

// Each thread walks the arrays with a grid-wide stride, keeping its own running sum; then the
// block adds them up in `cache` and thread 0 publishes the block's share.
__global__ void dot_kernel(int N, const float* a, const float* b, float* c)
{
    __shared__ float cache[THREADS_PER_BLOCK];
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    int cacheIndex = threadIdx.x;

    float temp = 0;
    while (tid < N) {
        temp += a[tid] * b[tid];
        tid += blockDim.x * gridDim.x;
    }
    cache[cacheIndex] = temp;
    __syncthreads();

    int i = blockDim.x / 2;
    while (i != 0) {
        if (cacheIndex < i)
            cache[cacheIndex] += cache[cacheIndex + i];
        __syncthreads();
        i /= 2;
    }

    if (cacheIndex == 0)
        atomicAdd(c, cache[0]);
}

void dot_product(const float* a, const float* b, float* d_result, int n)
{
    const int blocksPerGrid = std::min(1024, (n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK);
    cudaMemset(d_result, 0, sizeof(float));
    dot_kernel<<<blocksPerGrid, THREADS_PER_BLOCK>>>(n, a, b, d_result);
}
