// A 64-bit index (size_t) with an int modulus: i % cols and kl_v * 4 % cols are both computed in
// size_t (cols converted), the vector index too.
#include <cstddef>

__global__ void k(const float* in, const float* bias, float* out, size_t n, int cols) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x) {
    out[i] = fmaxf(in[i] + bias[i % cols], 0.0f);
  }
}
