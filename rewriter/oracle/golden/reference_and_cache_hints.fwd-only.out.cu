// a reference and a const pointer into promoted shared memory, and the cache-hint load/store intrinsics
__global__ void k(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  __shared__ double s[32];
  double& r = s[threadIdx.x % 32];
  r = __ldcs(x + i) * 2.0;
  const double* q = &s[0];
  double b = q[1] + a;
  __stcs(y + i, b * x[i]);
}
