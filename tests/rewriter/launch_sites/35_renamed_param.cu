// shape: launcher parameter count is passed as the kernel's n, grid written over the launcher name, (count + 127) / 128
// kernel: fill
// args: v=3 n=1000
// grid: 8 1 1
// block: 128 1 1
// shmem: 0
#include <cuda_runtime.h>

__global__ void fill(float* out, float v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = v;
}

void fill_buffer(float* out, float value, int count) {
  fill<<<(count + 127) / 128, 128>>>(out, value, count);
}
