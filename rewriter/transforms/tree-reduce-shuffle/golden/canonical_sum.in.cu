// The tree in the form the inverse writes: forward and inverse round-trip.
__global__ void k(const float* in, float* out, int n)
{
    __shared__ float s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int kl_s = blockDim.x / 2; kl_s > 0; kl_s >>= 1) {
        if (threadIdx.x < kl_s)
            s[threadIdx.x] += s[threadIdx.x + kl_s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, s[0]);
}
