// golden: threads=100 refuses="threads must be a multiple of 32"
__global__ void k(int n, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 1.0f;
}
