// An expert's cache operators in several spellings: pointer arithmetic, an address, a row pointer,
// a vector type.
__global__ void k(float* out, const float* inp, const float4* w4, float4* o4, int C, float m, float s) {
  const float* x = inp + (size_t)blockIdx.x * C;
  for (int c = threadIdx.x; c < C; c += blockDim.x) {
    const float v = (__ldcs(x + c) - m) * s;
    __stcs(out + (size_t)blockIdx.x * C + c, v);
  }
  if (threadIdx.x < C / 4) {
    float4 w = __ldcg(&w4[threadIdx.x]);
    __stwt(&o4[threadIdx.x], w);
  }
  if (threadIdx.x == 0) __stcg(out, __ldlu(x));
}
