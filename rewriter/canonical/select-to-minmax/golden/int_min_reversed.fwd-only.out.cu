// An int minimum with the comparison written the other way round (m > v: a minimum).
#include <climits>

__global__ void k(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int m = INT_MAX;
    for (int j = i; j < n; j += blockDim.x * gridDim.x)
        m = min(m, in[j]);
    out[i] = m;
}
