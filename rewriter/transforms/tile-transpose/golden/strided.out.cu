// golden: block=16x16
// Row pitches that differ from the bounds (sub-matrix transpose); y declared first, comments kept.
__global__ void k(int height, int width, int ld_src, int ld_dst, const double* __restrict__ src,
                  double* __restrict__ dst) {
  __shared__ double kl_tile[32][33];
  for (int kl_j = 0; kl_j < 32; kl_j += 8) {
    const int row = blockIdx.y * 32 + threadIdx.y + kl_j;  // row of src
    const int col = blockIdx.x * 32 + threadIdx.x;  // column of src
    if (row < height && col < width) kl_tile[threadIdx.y + kl_j][threadIdx.x] = src[row * ld_src + col];
  }
  __syncthreads();
  for (int kl_j = 0; kl_j < 32; kl_j += 8) {
    const int row = blockIdx.y * 32 + threadIdx.x;
    const int col = blockIdx.x * 32 + threadIdx.y + kl_j;
    if (row < height && col < width) dst[col * ld_dst + row] = kl_tile[threadIdx.x][threadIdx.y + kl_j];  // dst = src^T
  }
}
