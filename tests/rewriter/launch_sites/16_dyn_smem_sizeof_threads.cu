// shape: dynamic shared memory as third config argument, sizeof(float) * threads with const int threads
// kernel: block_sum
// args: n=10000
// grid: 40 1 1
// block: 256 1 1
// shmem: 1024
#include <cuda_runtime.h>

__global__ void block_sum(const float* in, float* partial, int n) {
  extern __shared__ float sdata[];
  unsigned tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = sdata[0];
}

void partial_sums(const float* in, float* partial, int n) {
  const int threads = 256;
  int blocks = (n + threads - 1) / threads;
  block_sum<<<blocks, threads, sizeof(float) * threads>>>(in, partial, n);
}
