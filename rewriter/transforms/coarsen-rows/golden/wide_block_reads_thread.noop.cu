// golden: block=16x16 rows=4 block_x=64 refuses="reads threadIdx.x beyond its global indices"
// The column's thread index is read on its own: a 64-wide block would give it other values.
__global__ void k(const float* in, float* out, const float* lut, int w, int h)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < h && col < w)
        out[row * w + col] = in[row * w + col] * lut[threadIdx.x];
}
