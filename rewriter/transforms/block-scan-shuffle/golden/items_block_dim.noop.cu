// golden: block_size=256 items=4 refuses="reads blockDim"
// The element index counts blocks of blockDim.x threads: with 4 items a thread the block is 64
// threads and `i` would count other elements.
__global__ void k(const int* in, int* out, int n)
{
    __shared__ int s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? in[i] : 0;
    __syncthreads();
    for (int off = 1; off < 256; off *= 2) {
        int t = threadIdx.x >= off ? s[threadIdx.x - off] : 0;
        __syncthreads();
        s[threadIdx.x] += t;
        __syncthreads();
    }
    if (i < n) out[i] = s[threadIdx.x];
}
