// golden: refuses="at another thread's slot"
// After the scan every thread reads the block's total from the last slot.
__global__ void k(const float* in, float* out)
{
    __shared__ float s[256];
    int tid = threadIdx.x;
    s[tid] = in[blockIdx.x * blockDim.x + tid];
    __syncthreads();
    for (int off = 1; off < blockDim.x; off *= 2) {
        float v = tid >= off ? s[tid - off] : 0.0f;
        __syncthreads();
        s[tid] += v;
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + tid] = s[tid] / s[blockDim.x - 1];
}
