// x is read at i + 1 too: a gather (x is never stored to), read per lane with the lane's own i.
__global__ void k(const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    y[i] = x[i + 1] - x[i];
  }
}
