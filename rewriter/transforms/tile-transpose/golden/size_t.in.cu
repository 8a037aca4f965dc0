// golden: block=32x8
// 64-bit indices: the tile origin is computed in size_t.
__global__ void k(size_t rows, size_t cols, const int* in, int* out) {
  size_t x = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t y = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) out[x * rows + y] = in[y * cols + x];
}
