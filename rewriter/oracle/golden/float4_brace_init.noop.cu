// golden: refuses="brace-initializes"
// a float4 brace-initialized from products: nvcc rejects the narrowing from double
__global__ void k(int n, const float4* x, float4* y, float s) {
  float4 a = x[0];
  float4 b = {a.x * s, a.y * s, a.z, a.w};
  y[0] = b;
}
