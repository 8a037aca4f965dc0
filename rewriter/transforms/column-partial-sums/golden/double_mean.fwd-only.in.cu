// golden: block_size=64
// A column mean with a double accumulator, size_t indices and the sum written as `s = s + ...`.
__global__ void k(const float* x, float* mean, size_t n_rows, size_t n_cols)
{
    size_t col = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (col < n_cols) {
        double s = 0;
        for (size_t row = 0; row < n_rows; row += 1)
            s = s + (double)x[row * n_cols + col];
        mean[col] = (float)(s / (double)n_rows);
    }
}
