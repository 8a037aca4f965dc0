// shape: two-pass reduction, the same kernel launched twice; the checked site is the second pass over the partial sums (n is the first pass's block count)
// kernel: block_sum
// site: 2
// args: n=40
// grid: 1 1 1
// block: 256 1 1
// shmem: 1024
#include <cuda_runtime.h>

constexpr int kThreads = 256;

__global__ void block_sum(const float* in, float* out, int n) {
  extern __shared__ float sdata[];
  unsigned tid = threadIdx.x;
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += in[i];
  sdata[tid] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

void total_sum(const float* in, float* partial, float* out, int n) {
  const int blocks = (n + kThreads - 1) / kThreads;
  block_sum<<<blocks, kThreads, kThreads * sizeof(float)>>>(in, partial, n);
  block_sum<<<1, kThreads, kThreads * sizeof(float)>>>(partial, out, blocks);
}
