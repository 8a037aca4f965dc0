// shape: block size is a launcher parameter not passed to the kernel, grid via inline ceil_div helper
// kernel: vec_add
// args: N=1000
// launcher: block_size=128
// grid: 8 1 1
// block: 128 1 1
// shmem: 0
#include <cuda_runtime.h>

inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

__global__ void vec_add(const float* a, const float* b, float* c, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) c[i] = a[i] + b[i];
}

void launch_vec_add(const float* a, const float* b, float* c, int N, int block_size) {
  const int grid_size = ceil_div(N, block_size);
  vec_add<<<grid_size, block_size>>>(a, b, c, N);
}
