// shape: size_t element count and long block size, launch config wrapped in static_cast<unsigned>(...)
// kernel: axpy_sz
// args: a=2 n=5000000
// grid: 19532 1 1
// block: 256 1 1
// shmem: 0
#include <cstddef>
#include <cuda_runtime.h>

__global__ void axpy_sz(float a, const float* x, float* y, size_t n) {
  size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}

void axpy_large(float a, const float* x, float* y, size_t n) {
  const long threads = 256;
  const size_t blocks = (n + threads - 1) / threads;
  axpy_sz<<<static_cast<unsigned>(blocks), static_cast<unsigned>(threads)>>>(a, x, y, n);
}
