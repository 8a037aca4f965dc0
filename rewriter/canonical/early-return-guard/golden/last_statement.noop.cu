// golden: refuses="no early return"
// An early return with nothing after it guards nothing.
__global__ void k(float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 0.0f;
    if (i >= n) return;
}
