#include <cuda_runtime.h>

// The star written next to the name (float *x): the keyword goes between them.
__global__ void k(int n, const float * __restrict__ x, float * __restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
