// `&&` becomes `||`, `!flag` becomes `flag`, `==` becomes `!=`.
__global__ void k(const int* flags, int* out, int n, bool enabled)
{
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    if (enabled || tid != 0) {
        if (tid < n) out[tid] = flags[tid] + 1;
    }
}
