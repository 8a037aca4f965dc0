// An int scan with the temporary set under the guard, the block total written by the last thread.
__global__ void k(const int* counts, int* offsets, int* block_totals)
{
    __shared__ int s[512];
    unsigned int tid = threadIdx.x;
    unsigned int g = blockIdx.x * blockDim.x + tid;
    s[tid] = counts[g];
    __syncthreads();
    for (unsigned int d = 1; d < blockDim.x; d *= 2) {
        int add = 0;
        if (tid >= d)
            add = s[tid - d];
        __syncthreads();
        s[tid] += add;
        __syncthreads();
    }
    offsets[g] = s[tid];
    if (tid == blockDim.x - 1) block_totals[blockIdx.x] = s[tid];
}
