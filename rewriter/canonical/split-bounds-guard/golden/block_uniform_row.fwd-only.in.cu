// The row is the block's (blockIdx.y): the same for every thread of the block, so the guard is the
// bounds check on the global column index with a block-uniform condition, checked first as written.
__global__ void k(float* out, const float* inp, const float* bias, int rows, int cols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y;
    if (row < rows && col < cols) {
        int i = row * cols + col;
        out[i] = inp[i] + bias[col];
    }
}
