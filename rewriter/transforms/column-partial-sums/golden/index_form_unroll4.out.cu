// golden: block_size=128 unroll=4 rows_split=16
// One thread per column reading the column through a row-major index.
__global__ void k(const float* a, float* out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    __shared__ float kl_part[16][33];  // the column's rows split over threadIdx.y, the parts added here
    float kl_s = 0;
    if (c < cols) {
        float acc = 0.0f;
        #pragma unroll 4
        for (int r = threadIdx.y; r < rows; r += blockDim.y) {
            acc += a[r * cols + c];
        }
        kl_s = acc;
    }
    kl_part[threadIdx.y][threadIdx.x] = kl_s;
    __syncthreads();
    if (threadIdx.y == 0 && c < cols) {
        float acc = kl_s;
        for (unsigned int kl_r = 1; kl_r < blockDim.y; ++kl_r) acc += kl_part[kl_r][threadIdx.x];
        out[c] = acc;
    }
}
