// library calls in several forms: __ldg loads (converted where read), a reference and an auto pointer
// into promoted shared memory, overloaded max, conversion and rounding intrinsics, a range-for
__global__ void k(int n, const float* x, const float* w, float* y) {
  __shared__ float s[128];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  if (i >= n) return;
  s[t] = __ldg(&x[i]) * __ldg(&w[i]);
  float& r = s[t];
  r += max(x[i], w[i]);
  auto p = s + t;
  *p *= 2.0f;
  int q = __float2int_rn(r) + __float2int_rz(x[i]);
  float z = __int2float_rn(q) + __fmul_rn(x[i], w[i]) + __fmaf_rn(x[i], w[i], r);
  float acc = 0.0f;
  for (float v : s) acc += v;
  y[i] = fabsf(x[i]) < 1e-3f ? 0.f : x[i] + z + acc;
  if (x[i] > 0.5f) y[i] = -x[i];
}
