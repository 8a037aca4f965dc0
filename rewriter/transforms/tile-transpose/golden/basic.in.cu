// golden: block=16x16
// The naive transpose of examples/experts: coalesced loads, stores `rows` elements apart.
__global__ void k(int rows, int cols, const float* in, float* out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) out[x * rows + y] = in[y * cols + x];
}
