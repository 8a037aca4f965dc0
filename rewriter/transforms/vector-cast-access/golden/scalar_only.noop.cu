// golden: refuses="no consecutive elements read or written one by one"
__global__ void k(int n, const float* x, float* y) {
  const float4* x4 = reinterpret_cast<const float4*>(x);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 4) y[i] = x4[i].x + x4[i].w;
}
