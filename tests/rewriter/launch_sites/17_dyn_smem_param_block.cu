// shape: dynamic shared memory 2 * block_size * sizeof(float) with block_size a launcher parameter; each block covers 2 * block_size elements
// kernel: reduce_pairs
// args: n=100000
// launcher: block_size=128
// grid: 391 1 1
// block: 128 1 1
// shmem: 1024
#include <cuda_runtime.h>

__global__ void reduce_pairs(const float* in, float* out, int n) {
  extern __shared__ float buf[];
  int base = blockIdx.x * 2 * blockDim.x;
  int a = base + threadIdx.x;
  int b = a + blockDim.x;
  buf[threadIdx.x] = a < n ? in[a] : 0.0f;
  buf[threadIdx.x + blockDim.x] = b < n ? in[b] : 0.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (unsigned k = 0; k < 2 * blockDim.x; ++k) s += buf[k];
    out[blockIdx.x] = s;
  }
}

void reduce_launch(const float* in, float* out, int n, int block_size) {
  int blocks = (n + 2 * block_size - 1) / (2 * block_size);
  reduce_pairs<<<blocks, block_size, 2 * block_size * sizeof(float)>>>(in, out, n);
}
