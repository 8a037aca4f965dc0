// extern shared memory, `s >>= 1` from `blockDim.x / 2`, unsigned tid, one atomic per block.
__global__ void k(const float* input, float* result, int n)
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
