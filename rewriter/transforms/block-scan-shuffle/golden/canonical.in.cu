// The scan in the form the inverse writes: forward and inverse round-trip.
__global__ void k(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    __shared__ float kl_scan[256];
    kl_scan[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int kl_off = 1; kl_off < blockDim.x; kl_off <<= 1) {
        float kl_t = threadIdx.x >= kl_off ? kl_scan[threadIdx.x - kl_off] : (float)0;
        __syncthreads();
        kl_scan[threadIdx.x] += kl_t;
        __syncthreads();
    }
    if (i < n) out[i] = kl_scan[threadIdx.x];
}
