// golden: block=32x8
// 64-bit indices: the tile origin is computed in size_t.
__global__ void k(size_t rows, size_t cols, const int* in, int* out) {
  __shared__ int kl_tile[32][33];
  for (int kl_j = 0; kl_j < 32; kl_j += 8) {
    size_t x = (size_t)blockIdx.x * 32 + threadIdx.x;
    size_t y = (size_t)blockIdx.y * 32 + threadIdx.y + kl_j;
    if (x < cols && y < rows) kl_tile[threadIdx.y + kl_j][threadIdx.x] = in[y * cols + x];
  }
  __syncthreads();
  for (int kl_j = 0; kl_j < 32; kl_j += 8) {
    size_t x = (size_t)blockIdx.x * 32 + threadIdx.y + kl_j;
    size_t y = (size_t)blockIdx.y * 32 + threadIdx.x;
    if (x < cols && y < rows) out[x * rows + y] = kl_tile[threadIdx.x][threadIdx.y + kl_j];
  }
}
