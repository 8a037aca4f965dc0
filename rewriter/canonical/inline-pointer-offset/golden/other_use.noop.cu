// golden: refuses="it is used other than as x[i] or *x"
// The pointer is passed on (and stepped): only its element accesses could be substituted.
__device__ float first(const float* p) { return p[0]; }

__global__ void k(const float* in, float* out, int C)
{
    int r = blockIdx.x;
    const float* x = in + r * C;
    out[r] = first(x) + x[1];
}
