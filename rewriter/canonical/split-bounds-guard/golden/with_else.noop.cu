// golden: refuses="else branch"
__global__ void k(float* data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && data[i] < 0.0f) data[i] = 0.0f; else if (i < n) data[i] *= 2.0f;
}
