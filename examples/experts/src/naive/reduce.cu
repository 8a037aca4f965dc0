// Naive on purpose: the form most people write first, one thread per element and one atomic per
// element into a single global value (every atomic of the grid serializes on one address). The
// alternative naive form (each thread sums a strided chunk, then one atomic) is already a partial
// optimization; this one is what the skills should start from. Never modified by KLineage.
#include "naive.h"

__global__ void reduce_sum(int n, const float* x, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i]);
}

__global__ void reduce_dot(int n, const float* x, const float* y, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i] * y[i]);
}

// There is no atomicMax for float: the usual compare-and-swap loop, which gives up as soon as the
// current maximum is at least this element.
__global__ void reduce_max(int n, const float* x, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    int* addr = reinterpret_cast<int*>(out);
    int old = *addr;
    while (v > __int_as_float(old)) {
      int assumed = old;
      old = atomicCAS(addr, assumed, __float_as_int(v));
      if (old == assumed) break;
    }
  }
}

cudaError_t launch_reduce_sum(int n, const float* x, float* out) {
  cudaError_t err = cudaMemsetAsync(out, 0, sizeof(float));
  if (err != cudaSuccess) return err;
  reduce_sum<<<(n + 255) / 256, 256>>>(n, x, out);
  return cudaGetLastError();
}

cudaError_t launch_reduce_dot(int n, const float* x, const float* y, float* out) {
  cudaError_t err = cudaMemsetAsync(out, 0, sizeof(float));
  if (err != cudaSuccess) return err;
  reduce_dot<<<(n + 255) / 256, 256>>>(n, x, y, out);
  return cudaGetLastError();
}

cudaError_t launch_reduce_max(int n, const float* x, float* out) {
  // start from x[0], which is part of the maximum anyway
  cudaError_t err = cudaMemcpyAsync(out, x, sizeof(float), cudaMemcpyDeviceToDevice);
  if (err != cudaSuccess) return err;
  reduce_max<<<(n + 255) / 256, 256>>>(n, x, out);
  return cudaGetLastError();
}
