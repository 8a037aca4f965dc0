// one thread per row: a float accumulator over the row, through a typedef and a row pointer
#include <cstddef>

typedef float real_t;

__global__ void k(size_t rows, size_t n, const float* x, float* y) {
  size_t r = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* row = x + r * n;
  double acc = 0.0;
  for (size_t c = 0; c < n; ++c) acc += row[c];
  y[r] = acc;
}
