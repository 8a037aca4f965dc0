// CORRECT (documented in docs/runner-job.md): flushes denormal inputs to zero, which the original
// does not. A flushed denormal moves a row's sum by less than 2^-126, far under the floor of a few
// ulps of the row sums' scale, so it passes; it would fail only on an output that is all denormal.
// Expected: accepted
#include <cfloat>
#include "kernels.h"

__global__ void row_sum(int rows, int cols, const float* x, float* out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) {
    float v = x[(size_t)r * cols + c];
    s += fabsf(v) < FLT_MIN ? 0.0f : v;
  }
  out[r] = s;
}

cudaError_t launch_row_sum(int rows, int cols, const float* x, float* out) {
  row_sum<<<(rows + 127) / 128, 128>>>(rows, cols, x, out);
  return cudaGetLastError();
}
