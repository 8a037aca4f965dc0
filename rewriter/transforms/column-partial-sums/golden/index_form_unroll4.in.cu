// golden: block_size=128 unroll=4 rows_split=16
// One thread per column reading the column through a row-major index.
__global__ void k(const float* a, float* out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < cols) {
        float acc = 0.0f;
        for (int r = 0; r < rows; ++r) {
            acc += a[r * cols + c];
        }
        out[c] = acc;
    }
}
