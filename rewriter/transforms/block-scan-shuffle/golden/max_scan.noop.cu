// golden: refuses="does not leave SH[tid] + SH[tid - off]"
// A running maximum: the step combines with fmaxf, not a sum.
__global__ void k(const float* in, float* out)
{
    __shared__ float s[256];
    int tid = threadIdx.x;
    s[tid] = in[blockIdx.x * blockDim.x + tid];
    __syncthreads();
    for (int off = 1; off < blockDim.x; off *= 2) {
        float v = tid >= off ? s[tid - off] : 0.0f;
        __syncthreads();
        s[tid] = fmaxf(s[tid], v);
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + tid] = s[tid];
}
