// golden: refuses="assigns acc, declared outside it"
// acc lives outside the guarded code: in a loop it would carry across elements.
__global__ void k(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 1.0f;
  if (i < n) {
    acc *= x[i];
    y[i] = acc;
  }
}
