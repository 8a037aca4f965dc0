// A row pointer per thread, the body inside the guard (one thread per row).
__global__ void k(float* out, const float* inp, int N, int C)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < N) {
        float maxval = -INFINITY;
        for (int i = 0; i < C; i++) {
            maxval = fmaxf(maxval, inp[idx * C + i]);
        }
        out[idx] = maxval;
    }
}
