// golden: refuses="i is used before a bounds guard"
// No bounds guard: nothing to loop over.
__global__ void k(const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = 2.0f * x[i];
}
