#include "numerics.h"

__global__ void conv1d_kernel(const float* in, const float* taps, float* out, int rows, int cols, int ntaps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y;
  if (i >= cols || r >= rows) return;
  const float* row = in + (size_t)r * cols;
  float acc = 0.0f;
  for (int t = 0; t < ntaps; ++t) {
    int j = i + t - ntaps / 2;
    if (j >= 0 && j < cols) acc += taps[t] * row[j];
  }
  out[(size_t)r * cols + i] = acc;
}

cudaError_t conv1d(const float* in, const float* taps, float* out, int rows, int cols, int ntaps) {
  dim3 grid((cols + 255) / 256, rows);
  conv1d_kernel<<<grid, 256>>>(in, taps, out, rows, cols, ntaps);
  return cudaGetLastError();
}
