__global__ void k(int n, double scale, const double* x, double* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (fabs(scale) >= 2.2250738585072014e-308 && fabs(scale) <= 4.4942328371557898e+307) {
    const double kl_rcp_scale = 1.0 / scale;
    for (int j = i; j < n; j += gridDim.x * blockDim.x) y[j] *= kl_rcp_scale;
  } else {
    for (int j = i; j < n; j += gridDim.x * blockDim.x) y[j] /= scale;
  }
}
