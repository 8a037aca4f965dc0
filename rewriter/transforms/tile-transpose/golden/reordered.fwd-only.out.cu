// golden: block=8x32
// Operands in another order, the guard's comparisons swapped and written the other way round,
// a braced copy and four-space indentation: forward keeps every expression as written.
__global__ void k(int n_rows, int n_cols, const float* a, float* at) {
    __shared__ float kl_tile[32][33];
    for (int kl_j = 0; kl_j < 32; kl_j += 8) {
        int y = blockIdx.y * 32 + threadIdx.y + kl_j;
        int x = blockIdx.x * 32 + threadIdx.x;
        if (n_rows > y && x < n_cols) kl_tile[threadIdx.y + kl_j][threadIdx.x] = a[x + y * n_cols];
    }
    __syncthreads();
    for (int kl_j = 0; kl_j < 32; kl_j += 8) {
        int y = blockIdx.y * 32 + threadIdx.x;
        int x = blockIdx.x * 32 + threadIdx.y + kl_j;
        if (n_rows > y && x < n_cols) at[n_rows * x + y] = kl_tile[threadIdx.x][threadIdx.y + kl_j];
    }
}
