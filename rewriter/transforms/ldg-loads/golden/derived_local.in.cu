// golden: block_size=none
// Loads through local pointers made from a const parameter: a row pointer and a float4 view.
__global__ void k(const float* __restrict__ in, float* __restrict__ out, int rows, int C) {
  const int r = blockIdx.x;
  if (r >= rows) return;
  const float* row = in + (size_t)r * C;
  const float4* row4 = reinterpret_cast<const float4*>(row);
  float s = 0.0f;
  for (int i = threadIdx.x; i < C / 4; i += blockDim.x) {
    float4 v = row4[i];
    s += v.x + v.y + v.z + v.w;
  }
  out[r * blockDim.x + threadIdx.x] = s + row[0];
}
