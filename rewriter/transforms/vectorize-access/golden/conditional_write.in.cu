// y is written on some paths only: it is loaded so unwritten lanes store back what they read.
__global__ void k(const float* x, float* y, float threshold, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    if (x[i] > threshold) {
      y[i] = x[i] - threshold;
    }
  }
}
