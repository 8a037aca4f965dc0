// golden: refuses="it is written or its address is taken"
// A pointer walked down a column (`p += width`) is not an offset fixed at its declaration.
__global__ void k(const float* data, float* sums, int width, int height)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col < width) {
        const float* p = data + col;
        float s = 0.0f;
        for (int r = 0; r < height; ++r) {
            s += *p;
            p += width;
        }
        sums[col] = s;
    }
}
