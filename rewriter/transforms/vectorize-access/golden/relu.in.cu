// out is only written: its vector is not loaded.
__global__ void k(const float* in, float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float v = in[i];
    out[i] = fmaxf(v, 0.0f);
  }
}
