// golden: refuses="does more than declare"
// A store before the row: once per thread now where several rows' threads made it.
__global__ void k(const float* in, float* out, int* flag, int w, int h)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col == 0) atomicAdd(flag, 1);
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < w && row < h) out[row * w + col] = in[row * w + col];
}
