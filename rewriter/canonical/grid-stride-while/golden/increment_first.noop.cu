// golden: refuses="last statement"
// The increment comes first: the body sees the next element, not this one.
__global__ void k(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    while (i < n) {
        i += blockDim.x * gridDim.x;
        if (i < n) out[i] = in[i];
    }
}
