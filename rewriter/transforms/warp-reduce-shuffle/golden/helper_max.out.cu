#include <cfloat>

__device__ float warpMax(float v) {
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, kl_offset));
  return v;
}

__global__ void k(const float* x, float* row_max, int cols) {
  float m = -FLT_MAX;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, x[blockIdx.x * cols + c]);
  m = warpMax(m);
  if (threadIdx.x % 32 == 0) atomicMax(reinterpret_cast<int*>(row_max) + blockIdx.x, __float_as_int(fmaxf(m, 0.0f)));
}
