// fast-math intrinsics: __expf, __fdividef, __saturatef (the last two have no double form)
__global__ void k(int n, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float e = __expf(-x[i]);
    float s = __fdividef(1.0f, 1.0f + e);
    y[i] = __saturatef(s * 1.5F - 0.25f);
  }
}
