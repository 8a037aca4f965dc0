// golden: refuses="outside a guard"
// Only the column is bounded.
__global__ void k(const float* in, float* out, int w)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < w)
        out[row * w + col] = in[row * w + col] + 1.0f;
}
