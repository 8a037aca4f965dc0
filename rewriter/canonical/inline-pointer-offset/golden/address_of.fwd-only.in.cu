// `&A[e]` with a size_t offset; a use whose index is a difference keeps its parentheses, and `*row`
// is the row's first element.
__global__ void k(const float* A, float* y, size_t rows, size_t ld)
{
    size_t r = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        const float* row = &A[r * ld];
        float s = *row;
        for (size_t c = 1; c < ld; ++c) s += row[c] - row[c - 1];
        y[r] = s;
    }
}
