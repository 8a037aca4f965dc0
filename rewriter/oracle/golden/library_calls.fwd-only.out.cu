// library calls in several forms: __ldg loads (converted where read), a reference and an auto pointer
// into promoted shared memory, overloaded max, conversion and rounding intrinsics, a range-for
__global__ void k(int n, const float* x, const float* w, float* y) {
  __shared__ double s[128];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  if (i >= n) return;
  s[t] = (double)(__ldg(&x[i])) * __ldg(&w[i]);
  double& r = s[t];
  r += max((double)(x[i]), (double)(w[i]));
  auto p = s + t;
  *p *= 2.0;
  int q = __double2int_rn(r) + __double2int_rz((double)(x[i]));
  double z = __int2double_rn(q) + __dmul_rn((double)(x[i]), (double)(w[i])) + __fma_rn((double)(x[i]), (double)(w[i]), r);
  double acc = 0.0;
  for (double v : s) acc += v;
  y[i] = fabs((double)(x[i])) < 1e-3 ? 0. : x[i] + z + acc;
  if (x[i] > 0.5) y[i] = -(double)(x[i]);
}
