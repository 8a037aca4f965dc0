// golden: refuses="no macro of the project"
#include <cfloat>
#include <cmath>

__global__ void k(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float m = -INFINITY;
    if (i < n) m = fmaxf(in[i], -FLT_MAX);
    if (i < n) out[i] = m;
}
