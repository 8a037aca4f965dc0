// golden: refuses="half-precision type __half"
#include <cuda_fp16.h>

__global__ void k(int n, const __half* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = __half2float(x[i]);
    y[i] = v * v + 1.0f;
  }
}
