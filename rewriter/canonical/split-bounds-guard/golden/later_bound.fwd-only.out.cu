// A condition without side effects before the bounds check: the bound is taken out first.
__global__ void k(float* data, int n, int m)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = 1.0f;
    if (i < n) {
        if (m > 0) data[i] += 1.0f;
    }
}
