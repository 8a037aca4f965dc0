// Naive on purpose, as a user would first write them: row sums and y = A x with one thread per row
// (each thread walks its row alone, so no load is coalesced), a sum of squares and a count with one
// atomic per element into a single global value. Never modified by KLineage.
#include "naive.h"

__global__ void row_sums(int rows, int cols, const float* in, float* out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) s += in[(size_t)r * cols + c];
  out[r] = s;
}

__global__ void gemv(int rows, int cols, const float* A, const float* x, float* y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) s += A[(size_t)r * cols + c] * x[c];
  y[r] = s;
}

__global__ void sum_squares(int n, const float* x, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i] * x[i]);
}

__global__ void count_positive(int n, const float* x, unsigned int* count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(count, x[i] > 0.0f ? 1u : 0u);
}

cudaError_t launch_row_sums(int rows, int cols, const float* in, float* out) {
  row_sums<<<(rows + 255) / 256, 256>>>(rows, cols, in, out);
  return cudaGetLastError();
}

cudaError_t launch_gemv(int rows, int cols, const float* A, const float* x, float* y) {
  gemv<<<(rows + 255) / 256, 256>>>(rows, cols, A, x, y);
  return cudaGetLastError();
}

cudaError_t launch_sum_squares(int n, const float* x, float* out) {
  cudaError_t err = cudaMemsetAsync(out, 0, sizeof(float));
  if (err != cudaSuccess) return err;
  sum_squares<<<(n + 255) / 256, 256>>>(n, x, out);
  return cudaGetLastError();
}

cudaError_t launch_count_positive(int n, const float* x, unsigned int* count) {
  cudaError_t err = cudaMemsetAsync(count, 0, sizeof(unsigned int));
  if (err != cudaSuccess) return err;
  count_positive<<<(n + 255) / 256, 256>>>(n, x, count);
  return cudaGetLastError();
}
