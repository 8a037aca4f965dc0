// A sum for any type with an atomicAdd (float, double, int, ...): each thread accumulates a strided
// slice of the input, the block adds its threads' values in shared memory and thread 0 adds the
// block's total to *out.
#pragma once

#include <cstddef>

namespace transfer {
namespace detail {

constexpr int kSumThreads = 256;  // the kernel's shared array is this big: launch with this block

template <typename T>
__global__ void sum_kernel(const T* __restrict__ in, T* __restrict__ out, size_t n)
{
    __shared__ T partial[kSumThreads];

    T acc = T(0);
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        acc += in[i];
    partial[threadIdx.x] = acc;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(out, partial[0]);
}

}  // namespace detail
}  // namespace transfer
