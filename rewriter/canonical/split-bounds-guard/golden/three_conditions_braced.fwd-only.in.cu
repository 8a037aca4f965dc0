// Three conjuncts, the bound written first as `n > i`, a braced body with a comment, size_t index.
__global__ void k(const float* x, const int* mask, float* y, size_t n, bool enabled)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (n > i && mask[i] != 0 && enabled) {
        // only the masked elements
        y[i] = 2.0f * x[i];
    }
}
