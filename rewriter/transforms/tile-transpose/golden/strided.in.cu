// golden: block=16x16
// Row pitches that differ from the bounds (sub-matrix transpose); y declared first, comments kept.
__global__ void k(int height, int width, int ld_src, int ld_dst, const double* __restrict__ src,
                  double* __restrict__ dst) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;  // row of src
  const int col = blockIdx.x * blockDim.x + threadIdx.x;  // column of src
  if (row < height && col < width) dst[col * ld_dst + row] = src[row * ld_src + col];  // dst = src^T
}
