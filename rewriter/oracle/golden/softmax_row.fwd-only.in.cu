// one thread per row: max, sum of exponentials, normalized store
#include <math.h>

__global__ void k(int rows, int cols, const float* x, float* y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* in = x + r * cols;
  float* out = y + r * cols;
  float m = -INFINITY;
  for (int c = 0; c < cols; ++c) m = fmaxf(m, in[c]);
  float sum = 0.0f;
  for (int c = 0; c < cols; ++c) sum += expf(in[c] - m);
  float inv = 1.0f / sum;
  for (int c = 0; c < cols; ++c) out[c] = expf(in[c] - m) * inv;
}
