// golden: refuses="only the sum is carried"
// The count of positive entries is used after the loop as well as the sum.
__global__ void k(const float* a, float* out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < cols) {
        const float scale = 1.0f / rows;
        float acc = 0.0f;
        for (int r = 0; r < rows; ++r) acc += a[r * cols + c];
        out[c] = acc * scale;
    }
}
