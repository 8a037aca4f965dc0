// golden: block_size=512
__global__ void k(const float* in, float* partial, int n)
{
    __shared__ float m[512];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + t;
    m[t] = i < n ? in[i] : -3.0e38f;
    __syncthreads();
    for (unsigned int kl_s = blockDim.x / 2; kl_s > 0; kl_s >>= 1) {
        if (t < kl_s)
            m[t] = fmaxf(m[t], m[t + kl_s]);
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = m[0];
}
