// golden: refuses="not one accumulation"
// A decaying sum: each iteration depends on the previous one, so rows cannot be split.
__global__ void k(const float* a, float* out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < cols) {
        float acc = 0.0f;
        for (int r = 0; r < rows; ++r) acc = 0.5f * acc + a[r * cols + c];
        out[c] = acc;
    }
}
