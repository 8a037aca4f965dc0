// golden: refuses="no bounds check on the global thread index joined"
// Guards that are the bounds check alone are already the normal form.
__global__ void k(float* data, int n, int m)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = 1.0f;
    if (m > 0) data[0] = 2.0f;
}
