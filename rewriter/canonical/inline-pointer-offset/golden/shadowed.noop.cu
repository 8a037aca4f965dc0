// golden: refuses="a name its offset uses is declared again in the kernel"
// The loop declares another i: `in[i * C + i]` would read the wrong element.
__global__ void k(const float* in, float* out, int N, int C)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        const float* x = in + i * C;
        float s = 0.0f;
        for (int i = 0; i < C; ++i) s += x[i];
        out[blockIdx.x * blockDim.x + threadIdx.x] = s;
    }
}
