// golden: refuses="no early return"
// The return inside a loop ends the kernel, not the iteration: it is not a guard of the rest.
__global__ void k(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int j = 0; j < 4; ++j) {
        if (in[i * 4 + j] < 0) return;
        out[i * 4 + j] = in[i * 4 + j];
    }
}
