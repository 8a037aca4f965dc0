// one thread per row: max, sum of exponentials, normalized store
#include <math.h>

__global__ void k(int rows, int cols, const float* x, float* y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* in = x + r * cols;
  float* out = y + r * cols;
  double m = -INFINITY;
  for (int c = 0; c < cols; ++c) m = fmax(m, (double)(in[c]));
  double sum = 0.0;
  for (int c = 0; c < cols; ++c) sum += exp(in[c] - m);
  double inv = 1.0 / sum;
  for (int c = 0; c < cols; ++c) out[c] = exp(in[c] - m) * inv;
}
