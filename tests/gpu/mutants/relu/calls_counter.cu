// WRONG (hostile): counts its launches in a __device__ variable (every thread takes a ticket, so
// launch k holds tickets k * T .. k * T + T - 1 for T threads) and is right for the first 2
// launches only; from the third on it returns at once. The counter changes during every run: state
// kept between launches. (The gate restores __device__ variables before every run and checks them
// after it, so this is caught on the first run; without the restore the third run would be wrong.)
// Expected: wrong-result
#include "kernels.h"

__device__ unsigned long long tickets;

__global__ void relu(int n, const float* in, float* out) {
  unsigned long long launch = atomicAdd(&tickets, 1ull) / (static_cast<unsigned long long>(gridDim.x) * blockDim.x);
  if (launch >= 2) return;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] > 0.0f ? in[i] : 0.0f;
}

cudaError_t launch_relu(int n, const float* in, float* out) {
  relu<<<(n + 255) / 256, 256>>>(n, in, out);
  return cudaGetLastError();
}
