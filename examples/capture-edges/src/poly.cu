// Reads its coefficients from __constant__ memory that the host sets: a captured launch records
// the arguments and the buffers, not the constant bank, so replaying it cannot reproduce the
// program's result and KLineage reports the kernel as not replayable.
#include "edges.h"

__constant__ float poly_c[4];

__global__ void poly(int n, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = poly_c[0] + v * (poly_c[1] + v * (poly_c[2] + v * poly_c[3]));
  }
}

cudaError_t set_poly_coefficients(const float c[4]) { return cudaMemcpyToSymbol(poly_c, c, 4 * sizeof(float)); }

cudaError_t launch_poly(int n, const float* x, float* y) {
  poly<<<(n + 255) / 256, 256>>>(n, x, y);
  return cudaGetLastError();
}
