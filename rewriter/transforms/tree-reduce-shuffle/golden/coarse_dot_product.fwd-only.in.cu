// golden: block_size=128 coarsen=4
// The loaded value is a product of two inputs (a dot product written one element per thread).
__global__ void k(int n, const double* a, const double* b, double* dot)
{
    __shared__ double cache[128];
    int tid = threadIdx.x;
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    cache[tid] = (i < n) ? a[i] * b[i] : 0.0;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) cache[tid] += cache[tid + s];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(dot, cache[0]);
}
