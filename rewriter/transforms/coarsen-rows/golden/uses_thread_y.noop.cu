// golden: refuses="uses threadIdx.y"
// The row's code reads threadIdx.y (a shared-memory-free lookup by the thread's row in the block).
__global__ void k(const float* in, float* out, const float* wts, int w, int h)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < w && row < h)
        out[row * w + col] = in[row * w + col] * wts[threadIdx.y];
}
