// shape: __host__ __device__ constexpr template helper cdiv<T>, block size a launcher parameter
// kernel: saxpy
// args: a=2 n=4097
// launcher: threads_per_block=256
// grid: 17 1 1
// block: 256 1 1
// shmem: 0
#include <cuda_runtime.h>

template <typename T>
__host__ __device__ constexpr T cdiv(T a, T b) {
  return (a + b - 1) / b;
}

__global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy_gpu(float a, const float* x, float* y, int n, int threads_per_block) {
  int blocks = cdiv(n, threads_per_block);
  saxpy<<<blocks, threads_per_block>>>(a, x, y, n);
}
