// A row pointer per thread, the body inside the guard (one thread per row).
__global__ void k(float* out, const float* inp, int N, int C)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < N) {
        const float* x = inp + idx * C;
        float maxval = -INFINITY;
        for (int i = 0; i < C; i++) {
            maxval = fmaxf(maxval, x[i]);
        }
        out[idx] = maxval;
    }
}
