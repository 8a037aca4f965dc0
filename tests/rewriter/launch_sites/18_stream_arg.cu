// shape: four-argument launch config with a cudaStream_t launcher parameter, k<<<g, 512, 0, stream>>>
// kernel: relu
// args: n=2048
// launcher: stream=0
// grid: 4 1 1
// block: 512 1 1
// shmem: 0
#include <cuda_runtime.h>

__global__ void relu(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

void relu_async(const float* x, float* y, int n, cudaStream_t stream) {
  relu<<<(n + 511) / 512, 512, 0, stream>>>(x, y, n);
}
