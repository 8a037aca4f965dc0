// golden: refuses="declared before it"
// A counter declared before the row and advanced by it: state would carry from one row to the next.
__global__ void k(const int* in, int* out, int w, int h)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int seen = 0;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < w && row < h) {
        seen += in[row * w + col];
        out[row * w + col] = seen;
    }
}
