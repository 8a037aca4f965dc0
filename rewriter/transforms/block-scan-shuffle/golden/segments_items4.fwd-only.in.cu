// golden: block_size=1024 items=4
// One block per segment of 1024 values, the textbook double buffer; with 4 items a thread the
// block shrinks to 256 threads, each loading, scanning and storing 4 consecutive elements.
__global__ void k(const float* src, float* dst, int len)
{
    extern __shared__ float buf[];
    int lane = threadIdx.x;
    const float* seg = src + (size_t)blockIdx.x * len;
    int a = 0, b = 1;
    buf[a * len + lane] = seg[lane] * 0.5f;
    __syncthreads();
    for (int d = 1; d < len; d *= 2) {
        a = 1 - a;
        b = 1 - a;
        if (lane >= d)
            buf[a * len + lane] = buf[b * len + lane] + buf[b * len + lane - d];
        else
            buf[a * len + lane] = buf[b * len + lane];
        __syncthreads();
    }
    dst[(size_t)blockIdx.x * len + lane] = buf[a * len + lane];
}
