// golden: block=16x16 refuses="not the same arithmetic type"
__global__ void k(int rows, int cols, const double* in, float* out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) out[x * rows + y] = in[y * cols + x];
}
