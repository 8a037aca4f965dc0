// A second early return, inside the guard an earlier step wrote: still the kernel's tail.
__global__ void k(const float* in, float* out, int rows, int cols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        const float* r = in + row * cols;
        if (cols == 0) return;
        float s = 0.0f;
        for (int c = 0; c < cols; ++c) s += r[c];
        out[row] = s / cols;
    }
}
