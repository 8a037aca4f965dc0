#include <cstddef>

__global__ void k(const float* src, float* dst, size_t n) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x) {
    float v = src[i];
    // inner loops are fine: they do not touch the new loop
    for (int r = 0; r < 4; ++r) {
      if (v > 100.0f) break;
      v = v * v;
    }
    dst[i] = v;
  }
}
