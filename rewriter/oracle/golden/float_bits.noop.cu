// golden: refuses="reinterprets float bits (__float_as_uint"
__global__ void k(int n, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i] * 0.5f;
    unsigned bits = __float_as_uint(v) & 0x7fffffffu;
    y[i] = __uint_as_float(bits);
  }
}
