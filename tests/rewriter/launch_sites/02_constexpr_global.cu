// shape: namespace-scope constexpr block size, (n + kBlock - 1) / kBlock, kBlock
// kernel: scale_kernel
// args: n=1000
// grid: 8 1 1
// block: 128 1 1
// shmem: 0
#include <cuda_runtime.h>

constexpr int kBlock = 128;

__global__ void scale_kernel(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}

void run_scale(const float* in, float* out, int n) {
  scale_kernel<<<(n + kBlock - 1) / kBlock, kBlock>>>(in, out, n);
}
