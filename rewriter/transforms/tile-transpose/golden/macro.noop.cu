// golden: block=16x16 refuses="through a macro"
#define AT(r, c, ld) ((r) * (ld) + (c))
__global__ void k(int rows, int cols, const float* in, float* out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) out[AT(x, y, rows)] = in[AT(y, x, cols)];
}
