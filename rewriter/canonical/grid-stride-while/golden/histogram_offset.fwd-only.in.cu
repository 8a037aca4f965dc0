// A byte histogram walking the input with a grid-wide stride kept in a local.
__global__ void k(const unsigned char* buffer, long size, unsigned int* histo)
{
    long i = threadIdx.x + (long)blockIdx.x * blockDim.x;
    long offset = (long)blockDim.x * gridDim.x;
    while (i < size) {
        atomicAdd(&histo[buffer[i]], 1);
        i += offset;
    }
}
