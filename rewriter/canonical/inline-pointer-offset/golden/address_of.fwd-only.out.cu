// `&A[e]` with a size_t offset; a use whose index is a difference keeps its parentheses, and `*row`
// is the row's first element.
__global__ void k(const float* A, float* y, size_t rows, size_t ld)
{
    size_t r = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float s = A[r * ld];
        for (size_t c = 1; c < ld; ++c) s += A[r * ld + c] - A[r * ld + (c - 1)];
        y[r] = s;
    }
}
