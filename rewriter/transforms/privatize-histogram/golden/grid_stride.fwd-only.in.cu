// Already a grid-stride loop (the normal form of `while (i < size) { ...; i += offset; }`): the
// launcher sized the grid itself, so it is kept.
__global__ void k(const unsigned char* buffer, long size, unsigned int* histo)
{
    for (long i = threadIdx.x + (long)blockIdx.x * blockDim.x; i < size; i += (long)blockDim.x * gridDim.x) {
        atomicAdd(&histo[buffer[i]], 1);
    }
}
