// An expert's cache operators in several spellings: pointer arithmetic, an address, a row pointer,
// a vector type.
__global__ void k(float* out, const float* inp, const float4* w4, float4* o4, int C, float m, float s) {
  const float* x = inp + (size_t)blockIdx.x * C;
  for (int c = threadIdx.x; c < C; c += blockDim.x) {
    const float v = (x[c] - m) * s;
    out[(size_t)blockIdx.x * C + c] = v;
  }
  if (threadIdx.x < C / 4) {
    float4 w = w4[threadIdx.x];
    o4[threadIdx.x] = w;
  }
  if (threadIdx.x == 0) out[0] = x[0];
}
