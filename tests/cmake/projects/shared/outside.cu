// Outside the project directory: materialized under src/_external/<hash>/.
#include "outside.h"
#include "klt.h"

__global__ void outside_kernel(int n, float* x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] -= KLT_OUTSIDE_OFFSET;
}

void launch_outside(int n, float* x) { outside_kernel<<<(n + 255) / 256, 256>>>(n, x); }
