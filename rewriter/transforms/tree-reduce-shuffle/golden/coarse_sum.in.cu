// golden: block_size=256 coarsen=8
// One element per thread into an extern shared array, the tree, one atomicAdd per block: each
// thread first sums a grid-stride run of elements, so the grid is 8x smaller.
__global__ void k(const float* input, float* result, int n)
{
    extern __shared__ float sdata[];
    unsigned int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (gid < n) ? input[gid] : 0.0f;
    __syncthreads();
    for (unsigned int kl_s = blockDim.x / 2; kl_s > 0; kl_s >>= 1) {
        if (tid < kl_s)
            sdata[tid] += sdata[tid + kl_s];
        __syncthreads();
    }
    if (tid == 0)
        atomicAdd(result, sdata[0]);
}
