// A function-like index macro whose argument holds another macro: one level per step.
#define WIDTH_OF(n) (n)
#define IDX(r, c, ld) ((r) * (ld) + (c))

__global__ void k(const float* in, float* out, int rows, int cols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < rows && col < cols)
        out[((row) * (WIDTH_OF(cols)) + (col))] = 2.0f * in[((row) * (cols) + (col))];
}
