// golden: refuses="geometry outside the column index"
// The kernel reads threadIdx.x again: a 32 x Y block would change what it means.
__global__ void k(const float* a, float* out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < cols) {
        float acc = 0.0f;
        for (int r = 0; r < rows; ++r) acc += a[r * cols + c];
        out[c] = acc + threadIdx.x;
    }
}
