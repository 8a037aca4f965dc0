// golden: refuses="a race"
// The other slot is read after this thread has stored (no barrier between): the neighbour may have
// stored its own by then.
__global__ void k(const float* in, float* out)
{
    __shared__ float s[256];
    int tid = threadIdx.x;
    s[tid] = in[blockIdx.x * blockDim.x + tid];
    __syncthreads();
    for (int off = 1; off < blockDim.x; off *= 2) {
        float mine = s[tid];
        __syncthreads();
        s[tid] = mine;
        if (tid >= off) s[tid] = mine + s[tid - off];
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + tid] = s[tid];
}
