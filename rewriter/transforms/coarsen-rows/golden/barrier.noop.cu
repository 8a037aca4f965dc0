// golden: refuses="calls __syncthreads"
// A block-wide barrier in the row's code (the block's threads would no longer run the same rows together).
__global__ void k(const float* in, float* out, int w, int h)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    float v = 0.0f;
    if (col < w && row < h) v = in[row * w + col];
    __syncthreads();
    if (col < w && row < h) out[row * w + col] = v;
}
