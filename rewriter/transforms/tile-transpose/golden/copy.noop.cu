// golden: block=16x16 refuses="is not `x * LDO + y`"
// A 2-D copy, not a transpose: the stores are already coalesced.
__global__ void k(int rows, int cols, const float* in, float* out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) out[y * cols + x] = in[y * cols + x];
}
