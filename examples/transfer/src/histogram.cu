// 256-bin byte histogram with one global atomicAdd per byte; a fixed grid (twice the number of SMs)
// walks the buffer with a grid-wide stride.
#include "transfer/transfer.h"

__global__ void histo_kernel(const unsigned char* buffer, long size, unsigned int* histo)
{
    long i = threadIdx.x + (long)blockIdx.x * blockDim.x;
    long offset = (long)blockDim.x * gridDim.x;
    while (i < size) {
        atomicAdd(&histo[buffer[i]], 1);
        i += offset;
    }
}

void histogram256(const unsigned char* d_buffer, long size, unsigned int* d_histo)
{
    int device = 0, sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);

    cudaMemset(d_histo, 0, 256 * sizeof(unsigned int));
    histo_kernel<<<sms * 2, 256>>>(d_buffer, size, d_histo);
}
