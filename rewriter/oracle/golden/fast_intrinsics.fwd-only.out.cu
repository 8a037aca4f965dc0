// fast-math intrinsics: __expf, __fdividef, __saturatef (the last two have no double form)
// promote-precision: double forms of float-only intrinsics
static __device__ __forceinline__ double kl_fdividef(double a, double b) { return a / b; }
static __device__ __forceinline__ double kl_saturate(double x) { return fmin(fmax(x, 0.0), 1.0); }
__global__ void k(int n, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double e = exp(-(double)(x[i]));
    double s = kl_fdividef(1.0, 1.0 + e);
    y[i] = kl_saturate(s * 1.5 - 0.25);
  }
}
