// WRONG: the bounds guard is dropped. At n = 2^22 the grid has exactly n threads and nothing
// happens; on the probe shapes (n + 1, the small n) the spare threads of the last block read the
// guards after x and y (NaN) and write NaN into the guard after y (at most 255 elements, well
// inside its 64 KiB).
// Expected: runtime-failed
#include "kernels.h"

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = a * x[i] + y[i];
}

cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {
  saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);
  return cudaGetLastError();
}
