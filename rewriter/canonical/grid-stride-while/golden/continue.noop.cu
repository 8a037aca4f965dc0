// golden: refuses="continue"
// A `continue` skips the while loop's increment (here: spins forever on a negative value); a for
// loop would run it, so the two are not the same loop.
__global__ void k(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    while (i < n) {
        if (in[i] < 0) continue;
        out[i] = in[i];
        i += blockDim.x * gridDim.x;
    }
}
