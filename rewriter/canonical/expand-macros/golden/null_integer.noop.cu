// golden: refuses="no macro of the project"
// NULL used as an integer (a GCC warning, but it compiles) is not a pointer: left as written.
#include <cstddef>
__global__ void k(int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (int)(long)NULL;
}
