// Activation kernels. Included (through transfer/kernels.cuh) by exactly one translation unit,
// src/ops.cu, which holds their launchers.
#pragma once

#include <math.h>

namespace transfer {
namespace detail {

#define SQRT_2_OVER_PI 0.7978845608028654f
#define GELU_CUBIC_COEF 0.044715f

// tanh approximation of GELU, one grid-stride loop over the whole array
__global__ void gelu_tanh_kernel(float* out, const float* inp, int N)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += blockDim.x * gridDim.x) {
        float v = inp[i];
        float inner = SQRT_2_OVER_PI * (v + GELU_CUBIC_COEF * v * v * v);
        out[i] = 0.5f * v * (1.0f + tanhf(inner));
    }
}

// in-place ReLU: negative values are overwritten with zero, the others are left alone
__global__ void relu_inplace_kernel(float* data, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid < n && data[gid] < 0.0f)
        data[gid] = 0.0f;
}

}  // namespace detail
}  // namespace transfer
