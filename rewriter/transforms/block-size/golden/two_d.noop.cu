// golden: threads=512 block=16x16 refuses="the block is not 1-D"
__global__ void k(int n, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 1.0f;
}
