// shape: Caffe/PyTorch-style GET_BLOCKS(N) inline helper with std::max(std::min(...), 1) and a constexpr NUM_THREADS
// kernel: copy_grid_stride
// args: n=10000
// grid: 20 1 1
// block: 512 1 1
// shmem: 0
#include <algorithm>
#include <cuda_runtime.h>

constexpr int NUM_THREADS = 512;
constexpr int MAX_NUM_BLOCKS = 4096;

inline int GET_BLOCKS(const int N) {
  return std::max(std::min((N + NUM_THREADS - 1) / NUM_THREADS, MAX_NUM_BLOCKS), 1);
}

__global__ void copy_grid_stride(const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = x[i];
}

void copy_get_blocks(const float* x, float* y, int n) {
  copy_grid_stride<<<GET_BLOCKS(n), NUM_THREADS>>>(x, y, n);
}
