// golden: block=16x16 refuses="already uses __shared__ memory"
__global__ void k(int rows, int cols, const float* in, float* out) {
  __shared__ float staged[16][17];
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) staged[threadIdx.y][threadIdx.x] = in[y * cols + x];
  if (x < cols && y < rows) out[x * rows + y] = staged[threadIdx.y][threadIdx.x];
}
