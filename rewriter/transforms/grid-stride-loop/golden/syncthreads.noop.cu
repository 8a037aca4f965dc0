// golden: refuses="calls __syncthreads (a barrier"
// A barrier in the guarded code: threads of a block would run different trip counts.
__global__ void k(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    __syncthreads();
    y[i] = v;
  }
}
