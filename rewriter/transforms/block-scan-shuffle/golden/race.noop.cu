// golden: refuses="a race"
// The one-buffer step without a barrier between its read and its write is a race, not a scan.
__global__ void k(const float* in, float* out)
{
    __shared__ float s[256];
    int tid = threadIdx.x;
    s[tid] = in[blockIdx.x * blockDim.x + tid];
    __syncthreads();
    for (int off = 1; off < blockDim.x; off *= 2) {
        if (tid >= off) s[tid] += s[tid - off];
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + tid] = s[tid];
}
