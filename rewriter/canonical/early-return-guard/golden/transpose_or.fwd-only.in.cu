// An early exit over a 2-D range, unsigned indices against int bounds.
__global__ void k(float* odata, const float* idata, int w, int h)
{
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;

    odata[x * h + y] = idata[y * w + x];
}
