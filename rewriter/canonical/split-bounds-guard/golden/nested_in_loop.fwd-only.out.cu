// The joined guard inside a loop over columns.
__global__ void k(const float* in, float* out, int n, int cols, float t)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    for (int c = 0; c < cols; ++c)
        if (row < n) {
            if (in[row * cols + c] > t) out[row * cols + c] = t;
        }
}
