// golden: block_size=256 coarsen=8 refuses="is not the identity of the tree's fmaxf"
// Padding with -FLT_MAX is not fmaxf's identity (an all -INFINITY input would give -FLT_MAX).
#include <cfloat>
__global__ void k(const float* in, float* out, int n)
{
    __shared__ float s[256];
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = (gid < n) ? in[gid] : -FLT_MAX;
    __syncthreads();
    for (int st = blockDim.x / 2; st > 0; st >>= 1) {
        if (threadIdx.x < st) s[threadIdx.x] = fmaxf(s[threadIdx.x], s[threadIdx.x + st]);
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicMax((int*)out, __float_as_int(s[0]));
}
