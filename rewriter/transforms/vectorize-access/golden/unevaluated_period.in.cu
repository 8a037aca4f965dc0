// bias[i % cols] only in sizeof: never read, so no vector read of bias (it stays as written, per lane).
__global__ void k(int n, int cols, const float* in, const float* bias, float* out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    out[i] = in[i] * (float)sizeof(bias[i % cols]);
  }
}
