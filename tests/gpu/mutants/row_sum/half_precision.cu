// WRONG: accumulates in half precision (cuda_fp16.h): 11 significant bits, so the row's sum is off
// the oracle by far more than twice the original's error.
// Expected: wrong-result
#include <cuda_fp16.h>
#include "kernels.h"

__global__ void row_sum(int rows, int cols, const float* x, float* out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  __half s = __float2half(0.0f);
  for (int c = 0; c < cols; ++c) s = __hadd(s, __float2half(x[(size_t)r * cols + c]));
  out[r] = __half2float(s);
}

cudaError_t launch_row_sum(int rows, int cols, const float* x, float* out) {
  row_sum<<<(rows + 127) / 128, 128>>>(rows, cols, x, out);
  return cudaGetLastError();
}
