// A row pointer cast from an offset, an expression index, a float2 store of a computed value.
__global__ void k(const float* in, float2* pairs, float* out, int C) {
  const float4* row = reinterpret_cast<const float4*>(in + (size_t)blockIdx.x * C);
  float2* o2 = reinterpret_cast<float2*>(out + (size_t)blockIdx.x * C);
  for (int j = threadIdx.x; j < C / 4; j += blockDim.x) {
    float4 v = make_float4((in + (size_t)blockIdx.x * C)[4 * j], (in + (size_t)blockIdx.x * C)[4 * j + 1], (in + (size_t)blockIdx.x * C)[4 * j + 2], (in + (size_t)blockIdx.x * C)[4 * j + 3]);
    { const float2 kl_v = make_float2(v.x + v.y, v.z); (out + (size_t)blockIdx.x * C)[2 * (2 * j)] = kl_v.x; (out + (size_t)blockIdx.x * C)[2 * (2 * j) + 1] = kl_v.y; }
    { const float2 kl_v = make_float2(v.w, 0.0f); (out + (size_t)blockIdx.x * C)[2 * (2 * j + 1)] = kl_v.x; (out + (size_t)blockIdx.x * C)[2 * (2 * j + 1) + 1] = kl_v.y; }
  }
  if (threadIdx.x == 0) pairs[blockIdx.x] = make_float2(row[0].x, 0.0f);
}
