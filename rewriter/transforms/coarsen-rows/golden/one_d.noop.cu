// golden: refuses="no top-level `T row"
// A 1-D kernel has no row to coarsen.
__global__ void k(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * x[i];
}
