// shape: launch hidden in a KERNEL_LAUNCH(kernel, grid, block, smem, stream, ...) macro that also checks cudaGetLastError
// kernel: bias_add
// args: n=300 bias=1
// launcher: stream=0
// grid: 2 1 1
// block: 256 1 1
// shmem: 0
#include <cstdio>
#include <cuda_runtime.h>

#define KERNEL_LAUNCH(kernel, grid, block, smem, stream, ...)                    \
  do {                                                                           \
    kernel<<<(grid), (block), (smem), (stream)>>>(__VA_ARGS__);                  \
    cudaError_t err_ = cudaGetLastError();                                       \
    if (err_ != cudaSuccess)                                                     \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
  } while (0)

__global__ void bias_add(const float* x, float* y, int n, float bias) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + bias;
}

void bias_add_launch(const float* x, float* y, int n, float bias, cudaStream_t stream) {
  const int blocks = (n + 255) / 256;
  KERNEL_LAUNCH(bias_add, blocks, 256, 0, stream, x, y, n, bias);
}
