// Vector addition with the element type chosen by a macro, as in many benchmark suites.
#include "transfer/transfer.h"

#define DATA_TYPE float
#define THREADS 1024

__global__ void vecAdd(const DATA_TYPE* a, const DATA_TYPE* b, DATA_TYPE* c, int n)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

void vector_add(const float* a, const float* b, float* c, int n)
{
    int blocks = (n + THREADS - 1) / THREADS;
    vecAdd<<<blocks, THREADS>>>(a, b, c, n);
}
