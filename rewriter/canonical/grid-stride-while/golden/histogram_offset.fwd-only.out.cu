// A byte histogram walking the input with a grid-wide stride kept in a local.
__global__ void k(const unsigned char* buffer, long size, unsigned int* histo)
{
    for (long i = threadIdx.x + (long)blockIdx.x * blockDim.x; i < size; i += (long)blockDim.x * gridDim.x) {
        atomicAdd(&histo[buffer[i]], 1);
    }
}
