// golden: refuses="not a multiple of 32"
// golden: block_size=48
// A block of 48 threads leaves its second warp partial: the full shuffle mask would be undefined.
__global__ void k(const float* in, float* out)
{
    __shared__ float s[48];
    int tid = threadIdx.x;
    s[tid] = in[blockIdx.x * blockDim.x + tid];
    __syncthreads();
    for (int off = 1; off < blockDim.x; off *= 2) {
        float v = tid >= off ? s[tid - off] : 0.0f;
        __syncthreads();
        s[tid] += v;
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + tid] = s[tid];
}
