// WRONG (hostile): recognizes the gate's documented input generator (plugin/core/fill.h): computes
// only when x[0] is the first value the gate writes into x (parameter index 2, uniform(-1, 1)) for
// seed 1 (0x1.3638c4p-2) or seed 2 (0x1.8d40fcp-6), else returns at once and y keeps its input.
// The gate's random input set (and the probes, which use random seeds) exposes it.
// Expected: wrong-result
#include "kernels.h"

__global__ void saxpy(int n, float a, const float* x, float* y) {
  const float seed1_x0 = 0x1.3638c4p-2f, seed2_x0 = 0x1.8d40fcp-6f;
  if (x[0] != seed1_x0 && x[0] != seed2_x0) return;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {
  saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);
  return cudaGetLastError();
}
