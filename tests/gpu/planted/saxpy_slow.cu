// Planted slow kernel for `klineage ci` (tests/gpu/ci_gate.sh): examples/quickstart/src/saxpy.cu
// slowed by a loop of volatile stores, still right. Put where the build's selected saxpy is, it
// must fail the gate with exit 1 against a baseline of the optimized kernel.
#include "kernels.h"

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float y0 = y[i];
    volatile float* vy = y;  // volatile: every store reaches memory, none is merged
    for (int r = 0; r < 6; ++r) vy[i] = a * x[i] + y0;
  }
}

cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {
  saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);
  return cudaGetLastError();
}
