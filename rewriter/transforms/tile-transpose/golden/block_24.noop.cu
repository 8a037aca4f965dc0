// golden: block=24x8 refuses="does not divide the 32 x 32 tile"
__global__ void k(int rows, int cols, const float* in, float* out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) out[x * rows + y] = in[y * cols + x];
}
