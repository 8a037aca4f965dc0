__global__ void k(size_t n, const float* x, float* out) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(out, x[i] * x[i]);
  }
}
