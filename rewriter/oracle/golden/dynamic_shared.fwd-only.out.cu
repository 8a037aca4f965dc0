// The kernel's own dynamic shared array is promoted (the runner doubles the oracle's dynamic shared memory).
__global__ void k(int n, const float* x, float* y) {
  extern __shared__ double buf[];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  buf[t] = i < n ? x[i] : 0.0;
  __syncthreads();
  if (t == 0) {
    double s = 0.0;
    for (int j = 0; j < blockDim.x; ++j) s += buf[j];
    y[blockIdx.x] = s;
  }
}
