// golden: block=8x32
// Operands in another order, the guard's comparisons swapped and written the other way round,
// a braced copy and four-space indentation: forward keeps every expression as written.
__global__ void k(int n_rows, int n_cols, const float* a, float* at) {
    int y = threadIdx.y + blockDim.y * blockIdx.y;
    int x = threadIdx.x + blockIdx.x * blockDim.x;
    if (n_rows > y && x < n_cols) {
        at[n_rows * x + y] = a[x + y * n_cols];
    }
}
