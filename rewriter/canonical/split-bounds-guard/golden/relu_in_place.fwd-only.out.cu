// The element test joined to the bounds check.
__global__ void k(float* data, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid < n) {
        if (data[gid] < 0.0f)
            data[gid] = 0.0f;
    }
}
