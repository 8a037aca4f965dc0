// CORRECT: the same loop with Kahan's compensated summation: more accurate than the original.
// Expected: accepted
#include "kernels.h"

__global__ void row_sum(int rows, int cols, const float* x, float* out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f, comp = 0.0f;
  for (int c = 0; c < cols; ++c) {
    float y = __fsub_rn(x[(size_t)r * cols + c], comp);
    float t = __fadd_rn(s, y);
    comp = __fsub_rn(__fsub_rn(t, s), y);  // the _rn intrinsics: no contraction into an fma
    s = t;
  }
  out[r] = s;
}

cudaError_t launch_row_sum(int rows, int cols, const float* x, float* out) {
  row_sum<<<(rows + 127) / 128, 128>>>(rows, cols, x, out);
  return cudaGetLastError();
}
