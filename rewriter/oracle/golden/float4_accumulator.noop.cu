// golden: refuses="accumulates in the float4 local acc"
__global__ void k(int rows, int n4, const float4* x, float* y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  for (int c = 0; c < n4; ++c) {
    float4 v = x[r * n4 + c];
    acc.x += v.x;
    acc.y += v.y;
    acc.z += v.z;
    acc.w += v.w;
  }
  y[r] = acc.x + acc.y + acc.z + acc.w;
}
