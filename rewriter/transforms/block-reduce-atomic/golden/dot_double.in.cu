// golden: coarsen=8
__global__ void k(int n, const double* x, const double* y, double* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&out[0], x[i] * y[i]);
}
