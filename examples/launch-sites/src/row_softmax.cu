// Row-wise softmax, one thread per row: each thread walks its row three times (max, sum of
// exponentials, normalized store), so neighbouring threads read addresses `cols` floats apart.
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
  const int grid_size = ceil_div(rows, block_size);
  row_softmax_kernel<<<grid_size, block_size>>>(in, out, rows, cols);
}
