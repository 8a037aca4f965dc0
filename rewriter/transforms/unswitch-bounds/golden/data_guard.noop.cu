// golden: refuses="no bounds guard on a tap"
// The guard tests a value read from memory, not the tap's position: nothing proves it.
__global__ void k(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int c = 0;
        for (int d = 0; d < 8; ++d) {
            if (in[(i + d) % n] > 0)
                c++;
        }
        out[i] = c;
    }
}
