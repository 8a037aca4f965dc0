// golden: refuses="not blockDim.x * gridDim.x"
// A block-stride loop (each block walks its own tile): not a grid-stride loop.
__global__ void k(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    while (i < n) {
        out[i] = in[i];
        i += blockDim.x;
    }
}
