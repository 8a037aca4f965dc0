// Object-like macros for the element type and constants; FLT_MAX (a system macro) stays.
#include <cfloat>
#define DATA_TYPE float
#define CLIP_MAX 65504.0f
#define HALF_CLIP (CLIP_MAX/2)

__global__ void k(const DATA_TYPE* a, DATA_TYPE* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? a[i] : -FLT_MAX;
    if (i < n) c[i] = fminf(v, 65504.0f) - (CLIP_MAX/2);
}
