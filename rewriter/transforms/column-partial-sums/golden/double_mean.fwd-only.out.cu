// golden: block_size=64
// A column mean with a double accumulator, size_t indices and the sum written as `s = s + ...`.
__global__ void k(const float* x, float* mean, size_t n_rows, size_t n_cols)
{
    size_t col = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    __shared__ double kl_part[32][33];  // the column's rows split over threadIdx.y, the parts added here
    double kl_s = 0;
    if (col < n_cols) {
        double s = 0;
        for (size_t row = threadIdx.y; row < n_rows; row += blockDim.y)
            s = s + (double)x[row * n_cols + col];
        kl_s = s;
    }
    kl_part[threadIdx.y][threadIdx.x] = kl_s;
    __syncthreads();
    if (threadIdx.y == 0 && col < n_cols) {
        double s = kl_s;
        for (unsigned int kl_r = 1; kl_r < blockDim.y; ++kl_r) s += kl_part[kl_r][threadIdx.x];
        mean[col] = (float)(s / (double)n_rows);
    }
}
