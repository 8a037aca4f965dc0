// Expert reductions: CUB's device-wide reductions for sum and max; the dot product as a
// grid-stride float4 kernel, cub::BlockReduce per block and one atomicAdd per block.
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_reduce.cuh>

#include "common.cuh"
#include "experts.h"

namespace {

// CUB's temporary storage, grown on demand and kept (the first, warm-up call allocates).
cudaError_t temp(size_t bytes, void** ptr) {
  static void* buf = nullptr;
  static size_t have = 0;
  if (bytes > have) {
    if (buf) {
      cudaError_t e = cudaFree(buf);
      if (e != cudaSuccess) return e;
    }
    buf = nullptr;
    have = 0;
    cudaError_t e = cudaMalloc(&buf, bytes);
    if (e != cudaSuccess) return e;
    have = bytes;
  }
  *ptr = buf;
  return cudaSuccess;
}

constexpr int kDotBlock = 256;

__global__ void __launch_bounds__(kDotBlock) dot_block_reduce(int n, const float* __restrict__ x,
                                                              const float* __restrict__ y, float* out) {
  using BlockReduce = cub::BlockReduce<float, kDotBlock>;
  __shared__ typename BlockReduce::TempStorage storage;
  const int n4 = n / 4;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  const float4* y4 = reinterpret_cast<const float4*>(y);
  const int stride = gridDim.x * blockDim.x;
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
    float4 a = x4[i], b = y4[i];
    acc = fmaf(a.x, b.x, acc);
    acc = fmaf(a.y, b.y, acc);
    acc = fmaf(a.z, b.z, acc);
    acc = fmaf(a.w, b.w, acc);
  }
  for (int i = 4 * n4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) acc = fmaf(x[i], y[i], acc);
  float block_sum = BlockReduce(storage).Sum(acc);
  if (threadIdx.x == 0) atomicAdd(out, block_sum);
}

}  // namespace

cudaError_t expert_reduce_sum(int n, const float* x, float* out) {
  size_t bytes = 0;
  cudaError_t e = cub::DeviceReduce::Sum(nullptr, bytes, x, out, n);
  if (e != cudaSuccess) return e;
  void* t = nullptr;
  if ((e = temp(bytes, &t)) != cudaSuccess) return e;
  return cub::DeviceReduce::Sum(t, bytes, x, out, n);
}

cudaError_t expert_reduce_max(int n, const float* x, float* out) {
  size_t bytes = 0;
  cudaError_t e = cub::DeviceReduce::Max(nullptr, bytes, x, out, n);
  if (e != cudaSuccess) return e;
  void* t = nullptr;
  if ((e = temp(bytes, &t)) != cudaSuccess) return e;
  return cub::DeviceReduce::Max(t, bytes, x, out, n);
}

cudaError_t expert_reduce_dot(int n, const float* x, const float* y, float* out) {
  cudaError_t e = cudaMemsetAsync(out, 0, sizeof(float));
  if (e != cudaSuccess) return e;
  dot_block_reduce<<<expert_detail::gridFor(n / 4 + 1, kDotBlock, 4), kDotBlock>>>(n, x, y, out);
  return cudaGetLastError();
}
