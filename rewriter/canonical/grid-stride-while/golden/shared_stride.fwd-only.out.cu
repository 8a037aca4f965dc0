// size_t index, `i = i + stride`, and a stride local that another loop also reads (it stays).
#include <cstddef>
__global__ void k(float* y, const float* x, size_t n, size_t m)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x) {
        y[i] = 2.0f * x[i];
    }
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < m; j += stride) y[n + j] = 0.0f;
}
