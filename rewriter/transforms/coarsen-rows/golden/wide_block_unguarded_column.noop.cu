// golden: block=16x16 rows=4 block_x=64 refuses="outside a guard `col < W`"
// Only the row is bounded: the wider grid would write columns past the original's.
__global__ void k(const float* in, float* out, int w, int h)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < h)
        out[row * w + col] = in[row * w + col] + 1.0f;
}
