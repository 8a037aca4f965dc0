// A clamp to a float constant written in a macro: the promoted value meets a float literal the pass
// cannot edit, so that argument is converted where it is passed (a mixed (double, float) fmax would
// pick the C++ library's host-only template).
#define LIMIT 65504.0f
__global__ void k(const float* in, float* out, float scale, int n)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= n) return;

    float v = in[tid] * scale;
    v = fminf(fmaxf(v, -LIMIT), LIMIT);
    out[tid] = v;
}
