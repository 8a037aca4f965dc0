// golden: threads=512 refuses="uses_block_geometry_outside_index"
__global__ void k(int n, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = threadIdx.x;
}
