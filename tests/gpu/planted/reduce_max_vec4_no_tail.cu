// Planted wrong variant of examples/experts/src/naive/reduce.cu (reduce_max): the block-reduce-cas
// shape with vector_width 4 (block-reduce-cas-vec4) whose aligned branch has no scalar tail, so the
// last n % 4 elements are never compared. The gate must reject it (wrong-result):
// tests/gpu/experts_planted.sh gates it on tests/gpu/planted/vec4_tail.toml (iota, n = 2^24 + 3, so
// the maximum is x[n - 1], in the tail; exact), where the experts' uniform inputs would hide it.
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
  float kl_best = -INFINITY;
  if ((reinterpret_cast<unsigned long long>(x) & 15) == 0) {
    #pragma unroll 4
    for (int kl_v = blockIdx.x * blockDim.x + threadIdx.x; kl_v < n / 4; kl_v += blockDim.x * gridDim.x) {
      float4 kl_x4 = reinterpret_cast<const float4*>(x)[kl_v];
      kl_best = fmaxf(kl_best, kl_x4.x);
      kl_best = fmaxf(kl_best, kl_x4.y);
      kl_best = fmaxf(kl_best, kl_x4.z);
      kl_best = fmaxf(kl_best, kl_x4.w);
    }
    // planted: no scalar tail here, so the last n % 4 elements are never compared
  } else {
    #pragma unroll 4
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) kl_best = fmaxf(kl_best, x[i]);
  }
  // one maximum per warp, then per block, then one atomic update per block
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) kl_best = fmaxf(kl_best, __shfl_down_sync(0xffffffffu, kl_best, kl_offset));
  __shared__ float kl_warp_best[32];
  if (threadIdx.x % 32 == 0) kl_warp_best[threadIdx.x / 32] = kl_best;
  __syncthreads();
  if (threadIdx.x < 32) {
    kl_best = threadIdx.x < blockDim.x / 32 ? kl_warp_best[threadIdx.x] : -INFINITY;
    for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) kl_best = fmaxf(kl_best, __shfl_down_sync(0xffffffffu, kl_best, kl_offset));
  }
  if (threadIdx.x == 0) {
    float v = kl_best;
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
  reduce_max<<<(((n + 255) / 256) + 15) / 16, 256>>>(n, x, out);
  return cudaGetLastError();
}
