// Planted wrong variant of examples/experts/src/naive/reduce.cu (reduce_sum): the block-reduce-atomic
// shape with vector_width 4 (block-reduce-atomic-vec4) whose aligned branch has no scalar tail, so
// the last n % 4 elements are lost. The gate must reject it (wrong-result): tests/gpu/experts_planted.sh
// gates it on tests/gpu/planted/vec4_tail.toml (n = 2^24 - 5 ones, exact), where the experts'
// workload could not tell (n = 2^24 has no tail, and 3 lost uniform(-1, 1) terms are below its atol 4).
#include "naive.h"

__global__ void reduce_sum(int n, const float* x, float* out) {
  float kl_sum = 0;
  if ((reinterpret_cast<unsigned long long>(x) & 15) == 0) {
    #pragma unroll 4
    for (int kl_v = blockIdx.x * blockDim.x + threadIdx.x; kl_v < n / 4; kl_v += blockDim.x * gridDim.x) {
      float4 kl_x4 = reinterpret_cast<const float4*>(x)[kl_v];
      kl_sum += kl_x4.x;
      kl_sum += kl_x4.y;
      kl_sum += kl_x4.z;
      kl_sum += kl_x4.w;
    }
    // planted: no scalar tail here, so the last n % 4 elements are never added
  } else {
    #pragma unroll 4
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) kl_sum += x[i];
  }
  // one sum per warp, then per block, then one atomic per block
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) kl_sum += __shfl_down_sync(0xffffffffu, kl_sum, kl_offset);
  __shared__ float kl_warp_sums[32];
  if (threadIdx.x % 32 == 0) kl_warp_sums[threadIdx.x / 32] = kl_sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    kl_sum = threadIdx.x < blockDim.x / 32 ? kl_warp_sums[threadIdx.x] : 0;
    for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) kl_sum += __shfl_down_sync(0xffffffffu, kl_sum, kl_offset);
    if (threadIdx.x == 0) atomicAdd(out, kl_sum);
  }
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
  reduce_sum<<<(((n + 255) / 256) + 15) / 16, 256>>>(n, x, out);
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
