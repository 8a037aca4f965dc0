// A .cpp file with LANGUAGE CUDA: its materialized copy must compile as CUDA too.
#include "klt.h"

__global__ void as_cuda_kernel(int n, float* x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

void launch_as_cuda(int n, float* x) { as_cuda_kernel<<<(n + 255) / 256, 256>>>(n, x); }
