// golden: threads=512 refuses="no bounds guard"
__global__ void k(const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = x[i];
}
