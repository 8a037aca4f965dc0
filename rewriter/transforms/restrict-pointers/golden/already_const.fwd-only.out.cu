// x is already const: forward adds only __restrict__; the inverse would drop const as well.
__global__ void k(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}
