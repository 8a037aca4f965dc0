// golden: refuses="no macro of the project"
// A macro in the signature only (the body has none): the parameters are not the pass's.
#define REAL float

__global__ void k(const REAL* in, REAL* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}
