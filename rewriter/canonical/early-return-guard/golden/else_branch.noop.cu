// golden: refuses="else branch"
__global__ void k(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return; else out[i] = 0.0f;
    out[i] += in[i];
}
