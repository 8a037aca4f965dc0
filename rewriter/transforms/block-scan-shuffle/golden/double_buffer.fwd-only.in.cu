// The textbook double buffer: one block per row of `width` values, the buffers' roles swapped by
// integer bookkeeping each step, the result read from the last buffer written.
__global__ void k(const float* src, float* dst, int width)
{
    extern __shared__ float buf[];
    int t = threadIdx.x;
    const float* row_in = src + (size_t)blockIdx.x * width;
    int cur = 0, prev = 1;
    buf[cur * width + t] = row_in[t];
    __syncthreads();
    for (int step = 1; step < width; step <<= 1) {
        cur = 1 - cur;
        prev = 1 - cur;
        if (t >= step)
            buf[cur * width + t] = buf[prev * width + t] + buf[prev * width + t - step];
        else
            buf[cur * width + t] = buf[prev * width + t];
        __syncthreads();
    }
    dst[(size_t)blockIdx.x * width + t] = buf[cur * width + t];
}
