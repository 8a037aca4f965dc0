// shape: cudaLaunchKernelEx(&config, k, x, y, n) with cudaLaunchConfig_t config = {} filled field by field
// kernel: copy_kernel
// args: n=1000
// launcher: stream=0
// grid: 8 1 1
// block: 128 1 1
// shmem: 0
#include <cuda_runtime.h>

__global__ void copy_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

cudaError_t launch_copy_ex(const float* x, float* y, int n, cudaStream_t stream) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3((n + 127) / 128);
  config.blockDim = dim3(128);
  config.dynamicSmemBytes = 0;
  config.stream = stream;
  return cudaLaunchKernelEx(&config, copy_kernel, x, y, n);
}
