// A floating-point comparison is negated as !(...): a NaN makes both v < 0 and v >= 0 false.
__global__ void k(const float* x, float* y, float threshold, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && !(x[i] < threshold)) {
        y[i] = x[i] - threshold;
    }
}
