// A negative constant after a minus: the expansion stays apart from it (- -1, not --1).
#define OFFSET -1

__global__ void k(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i]-OFFSET;
}
