// Hand-written variant of conv1d: the block's input window staged in shared memory once, taps added
// from the last to the first (another order than the original's); the launch is unchanged. Rows
// with more than 63 taps read global memory directly.
#include "numerics.h"

__global__ void conv1d_kernel(const float* in, const float* taps, float* out, int rows, int cols, int ntaps) {
  __shared__ float window[256 + 62];
  const int r = blockIdx.y, base = blockIdx.x * blockDim.x, half = ntaps / 2;
  const float* row = in + (size_t)r * cols;
  const bool staged = blockDim.x == 256 && ntaps <= 63;
  if (staged)
    for (int k = threadIdx.x; k < 256 + ntaps - 1; k += 256) {
      int j = base + k - half;
      window[k] = j >= 0 && j < cols ? row[j] : 0.0f;
    }
  __syncthreads();
  int i = base + threadIdx.x;
  if (i >= cols || r >= rows) return;
  float acc = 0.0f;
  for (int t = ntaps - 1; t >= 0; --t) {
    int j = i + t - half;
    float e = staged ? window[threadIdx.x + t] : (j >= 0 && j < cols ? row[j] : 0.0f);
    acc += taps[t] * e;
  }
  out[(size_t)r * cols + i] = acc;
}

cudaError_t conv1d(const float* in, const float* taps, float* out, int rows, int cols, int ntaps) {
  dim3 grid((cols + 255) / 256, rows);
  conv1d_kernel<<<grid, 256>>>(in, taps, out, rows, cols, ntaps);
  return cudaGetLastError();
}
