// golden: block=16x16 refuses="(a barrier)"
__global__ void k(int rows, int cols, const float* in, float* out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  __syncthreads();
  if (x < cols && y < rows) out[x * rows + y] = in[y * cols + x];
}
