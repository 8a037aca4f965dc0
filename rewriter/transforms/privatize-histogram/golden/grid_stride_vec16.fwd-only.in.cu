// golden: vector_width=16
// The textbook grid-stride histogram (its launcher sized the grid): the grid is kept, the loads widen.
__global__ void k(const unsigned char* buffer, long size, unsigned int* histo)
{
    for (long i = threadIdx.x + (long)blockIdx.x * blockDim.x; i < size; i += (long)blockDim.x * gridDim.x) {
        atomicAdd(&histo[buffer[i]], 1);
    }
}
