// An optional bias tested against NULL, as C-style CUDA code writes it.
#include <cstddef>
__global__ void k(float* out, const float* in, const float* bias, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float b = (bias != NULL) ? bias[i] : 0.0f;
        out[i] = in[i] + b;
    }
}
