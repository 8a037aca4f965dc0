// shape: whole launch expression passed to a variadic error-checking macro, CUDA_CHECK_LAUNCH(k<<<g, b>>>(...))
// kernel: copy_kernel
// args: n=130
// grid: 3 1 1
// block: 64 1 1
// shmem: 0
#include <cstdio>
#include <cuda_runtime.h>

#define CUDA_CHECK_LAUNCH(...)                                            \
  do {                                                                    \
    __VA_ARGS__;                                                          \
    cudaError_t e_ = cudaGetLastError();                                  \
    if (e_ != cudaSuccess) fprintf(stderr, "launch failed: %s\n", cudaGetErrorString(e_)); \
  } while (0)

__global__ void copy_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

void copy_checked(const float* x, float* y, int n) {
  CUDA_CHECK_LAUNCH(copy_kernel<<<(n + 63) / 64, 64>>>(x, y, n));
}
