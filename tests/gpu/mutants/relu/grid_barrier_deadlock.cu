// WRONG: ends with a hand-made grid-wide barrier (thread 0 of every block counts itself in a
// __device__ counter and spins until all gridDim.x blocks have arrived). That assumes every block
// is resident at once; 16384 blocks are not (at most 8 per SM of 256 threads, 132 SMs), so the
// resident blocks spin forever and the rest never start.
// Expected: timeout
#include "kernels.h"

__device__ unsigned arrived;

__global__ void relu(int n, const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] > 0.0f ? in[i] : 0.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicAdd(&arrived, 1u);
    while (atomicAdd(&arrived, 0u) < gridDim.x) {
    }
  }
  __syncthreads();
}

cudaError_t launch_relu(int n, const float* in, float* out) {
  relu<<<(n + 255) / 256, 256>>>(n, in, out);
  return cudaGetLastError();
}
