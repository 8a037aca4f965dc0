// golden: refuses="no top-level grid-stride loop"
// One element per thread (grid-stride-loop comes first).
__global__ void k(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}
