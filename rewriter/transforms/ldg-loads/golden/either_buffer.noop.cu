// golden: refuses="no element load through a const pointer parameter left"
// p may point into out, which the kernel writes: its loads stay plain.
__global__ void k(const float* in, float* out, int n, int from_out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float* p = from_out ? out : in;
  if (i + 1 < n) out[i + 1] = p[i] * 0.5f;
}
