// WRONG: leaves a row alone when its output already holds a plausible value ("computed before"): a
// program that reuses the output buffer reads stale sums. The outputs' pre-fill (the previous
// input set's results on the third input set) catches it.
// Expected: wrong-result
#include "kernels.h"

__global__ void row_sum(int rows, int cols, const float* x, float* out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float old = out[r];
  if (old == old && fabsf(old) < 1000.0f) return;  // not NaN and plausible: kept
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) s += x[(size_t)r * cols + c];
  out[r] = s;
}

cudaError_t launch_row_sum(int rows, int cols, const float* x, float* out) {
  row_sum<<<(rows + 127) / 128, 128>>>(rows, cols, x, out);
  return cudaGetLastError();
}
