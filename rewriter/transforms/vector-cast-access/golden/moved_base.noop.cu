// golden: refuses="the kernel has no vector pointer cast from a scalar pointer"
// `x` moves after the cast: x[4 * i] is no longer x4[i], so neither direction may apply.
__global__ void k(int n, const float* x, float* out) {
  const float4* x4 = reinterpret_cast<const float4*>(x);
  x += 4;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 4 - 1) {
    float4 v = make_float4(x[4 * i], x[4 * i + 1], x[4 * i + 2], x[4 * i + 3]);
    out[i] = v.x + v.y + v.z + v.w;
  }
}
