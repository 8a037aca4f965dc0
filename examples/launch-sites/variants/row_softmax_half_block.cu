// A hand-written variant of src/row_softmax.cu: the same kernel, launched with half the block the
// caller asks for. Its launch goes through a local computed from the launcher's parameter
// `block_size`; the gate evaluates it for the value the program's captured launch shows.
#include "launch_sites.h"

static inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

__global__ void row_softmax_kernel(const float* in, float* out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* x = in + (size_t)r * cols;
  float* y = out + (size_t)r * cols;
  float m = x[0];
  for (int c = 1; c < cols; ++c) m = fmaxf(m, x[c]);
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) s += expf(x[c] - m);
  for (int c = 0; c < cols; ++c) y[c] = expf(x[c] - m) / s;
}

void row_softmax(const float* in, float* out, int rows, int cols, int block_size) {
  const int threads = block_size > 64 ? block_size / 2 : block_size;
  row_softmax_kernel<<<ceil_div(rows, threads), threads>>>(in, out, rows, cols);
}
