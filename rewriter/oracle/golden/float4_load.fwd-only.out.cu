// a vectorized axpy: float4 loads read once, the arithmetic per component, make_float4 stores
__global__ void k(int n4, float a, const float4* x, float4* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    const float4 xv = x[i];
    float4 yv = y[i];
    y[i] = make_float4((double)(a) * xv.x + yv.x, (double)(a) * xv.y + yv.y, (double)(a) * xv.z + yv.z, (double)(a) * xv.w + yv.w);
  }
}
