// golden: refuses="read outside the loop"
// The index is read after the loop: it must stay declared outside it.
__global__ void k(const float* in, float* out, int n, int* last)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    while (i < n) {
        out[i] = in[i];
        i += blockDim.x * gridDim.x;
    }
    if (i == n) *last = 1;
}
