// golden: block_size=128
// The temporary starts as the thread's own slot and adds the other one; the bound is `<=`.
__global__ void k(int* out, const int* in, unsigned int half)
{
    extern __shared__ int data[];
    unsigned int lid = threadIdx.x;
    data[lid] = in[blockIdx.x * blockDim.x + lid];
    __syncthreads();
    for (int d = 1; d <= half; d <<= 1) {
        int acc = data[lid];
        if (lid >= d) acc += data[lid - d];
        __syncthreads();
        data[lid] = acc;
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + lid] = data[lid];
}
