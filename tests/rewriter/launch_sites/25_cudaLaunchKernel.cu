// shape: runtime API launch, cudaLaunchKernel((const void*)k, grid, block, args, 0, stream) with void* args[] = {&x, &y, &n}
// kernel: copy_kernel
// args: n=1000
// launcher: stream=0
// grid: 4 1 1
// block: 256 1 1
// shmem: 0
#include <cuda_runtime.h>

__global__ void copy_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

cudaError_t launch_copy_api(const float* x, float* y, int n, cudaStream_t stream) {
  dim3 grid((n + 255) / 256);
  dim3 block(256);
  void* args[] = {&x, &y, &n};
  return cudaLaunchKernel((const void*)copy_kernel, grid, block, args, 0, stream);
}
