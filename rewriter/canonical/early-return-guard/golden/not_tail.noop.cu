// golden: refuses="no early return"
// The if with the return is not the last statement: the code after it runs for every thread.
__global__ void k(const int* in, int* out, int* count, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        if (in[i] == 0) return;
        out[i] = in[i];
    }
    atomicAdd(count, 1);
}
