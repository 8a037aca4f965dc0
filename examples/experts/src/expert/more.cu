// Expert references of the `more` kind.
// row_sums and gemv: one warp per row (8 rows per 256-thread block), float4 loads (when cols % 4 == 0
// and the pointers are 16-byte aligned; else scalar loads) and a warp-shuffle reduction.
// sum_squares and count_positive: grid-stride float4 loops (scalar tail), cub::BlockReduce per block
// and one atomicAdd per block, as the expert dot product.
#include <cstdint>

#include <cub/block/block_reduce.cuh>

#include "common.cuh"
#include "experts.h"

namespace {

constexpr int kWarpsPerBlock = 8;
constexpr int kBlock = 256;

__device__ __forceinline__ float warpSum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// out[r] = sum_c A[r][c] * x[c] (kHasX) or sum_c A[r][c] (!kHasX), one warp per row.
template <bool kHasX, bool kVec>
__global__ void __launch_bounds__(32 * kWarpsPerBlock) rows_warp(int rows, int cols, const float* __restrict__ A,
                                                                 const float* __restrict__ x, float* __restrict__ out) {
  const int lane = threadIdx.x & 31;
  const int row = blockIdx.x * kWarpsPerBlock + (threadIdx.x >> 5);
  if (row >= rows) return;
  const float* a = A + (size_t)row * cols;
  float acc0 = 0.0f, acc1 = 0.0f;  // two chains: more loads in flight per lane
  if (kVec) {
    const int v = cols / 4;
    const float4* a4 = reinterpret_cast<const float4*>(a);
    const float4* x4 = reinterpret_cast<const float4*>(x);
#pragma unroll 4
    for (int j = lane; j < v; j += 32) {
      const float4 p = a4[j];
      if (kHasX) {
        const float4 q = __ldg(&x4[j]);
        acc0 = fmaf(p.x, q.x, acc0);
        acc1 = fmaf(p.y, q.y, acc1);
        acc0 = fmaf(p.z, q.z, acc0);
        acc1 = fmaf(p.w, q.w, acc1);
      } else {
        acc0 += p.x + p.z;
        acc1 += p.y + p.w;
      }
    }
  } else {
    for (int c = lane; c < cols; c += 32) acc0 = kHasX ? fmaf(a[c], __ldg(&x[c]), acc0) : acc0 + a[c];
  }
  const float s = warpSum(acc0 + acc1);
  if (lane == 0) out[row] = s;
}

bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

template <bool kHasX>
cudaError_t launchRows(int rows, int cols, const float* A, const float* x, float* out) {
  const int grid = (rows + kWarpsPerBlock - 1) / kWarpsPerBlock;
  if (rows <= 0) return cudaSuccess;
  const bool vec = cols % 4 == 0 && aligned16(A) && (!kHasX || aligned16(x));
  if (vec)
    rows_warp<kHasX, true><<<grid, 32 * kWarpsPerBlock>>>(rows, cols, A, x, out);
  else
    rows_warp<kHasX, false><<<grid, 32 * kWarpsPerBlock>>>(rows, cols, A, x, out);
  return cudaGetLastError();
}

__global__ void __launch_bounds__(kBlock) sum_squares_block(int n, const float* __restrict__ x, float* out) {
  using BlockReduce = cub::BlockReduce<float, kBlock>;
  __shared__ typename BlockReduce::TempStorage storage;
  const int n4 = n / 4;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  const int stride = gridDim.x * blockDim.x;
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
    const float4 v = x4[i];
    acc = fmaf(v.x, v.x, acc);
    acc = fmaf(v.y, v.y, acc);
    acc = fmaf(v.z, v.z, acc);
    acc = fmaf(v.w, v.w, acc);
  }
  for (int i = 4 * n4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) acc = fmaf(x[i], x[i], acc);
  const float block_sum = BlockReduce(storage).Sum(acc);
  if (threadIdx.x == 0) atomicAdd(out, block_sum);
}

__global__ void __launch_bounds__(kBlock) count_positive_block(int n, const float* __restrict__ x,
                                                               unsigned int* count) {
  using BlockReduce = cub::BlockReduce<unsigned int, kBlock>;
  __shared__ typename BlockReduce::TempStorage storage;
  const int n4 = n / 4;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  const int stride = gridDim.x * blockDim.x;
  unsigned int c = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
    const float4 v = x4[i];
    c += (v.x > 0.0f) + (v.y > 0.0f) + (v.z > 0.0f) + (v.w > 0.0f);
  }
  for (int i = 4 * n4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c += x[i] > 0.0f;
  const unsigned int block_count = BlockReduce(storage).Sum(c);
  if (threadIdx.x == 0 && block_count) atomicAdd(count, block_count);
}

}  // namespace

cudaError_t expert_row_sums(int rows, int cols, const float* in, float* out) {
  return launchRows<false>(rows, cols, in, nullptr, out);
}

cudaError_t expert_gemv(int rows, int cols, const float* A, const float* x, float* y) {
  return launchRows<true>(rows, cols, A, x, y);
}

// x must be 16-byte aligned (cudaMalloc'd buffers are) for the float4 loads.
cudaError_t expert_sum_squares(int n, const float* x, float* out) {
  cudaError_t e = cudaMemsetAsync(out, 0, sizeof(float));
  if (e != cudaSuccess) return e;
  sum_squares_block<<<expert_detail::gridFor(n / 4 + 1, kBlock, 4), kBlock>>>(n, x, out);
  return cudaGetLastError();
}

cudaError_t expert_count_positive(int n, const float* x, unsigned int* count) {
  cudaError_t e = cudaMemsetAsync(count, 0, sizeof(unsigned int));
  if (e != cudaSuccess) return e;
  count_positive_block<<<expert_detail::gridFor(n / 4 + 1, kBlock, 4), kBlock>>>(n, x, count);
  return cudaGetLastError();
}
