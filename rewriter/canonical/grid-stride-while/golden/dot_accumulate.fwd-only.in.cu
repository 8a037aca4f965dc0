// The dot product's per-thread sum before a shared-memory tree: other statements sit between the
// index and the loop, and the stride is written out in the increment.
#define THREADS 256
__global__ void k(int n, const float* a, const float* b, float* c)
{
    __shared__ float cache[THREADS];
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    int cacheIndex = threadIdx.x;

    float temp = 0;
    while (tid < n) {
        temp += a[tid] * b[tid];
        tid += blockDim.x * gridDim.x;
    }
    cache[cacheIndex] = temp;
    __syncthreads();
    if (cacheIndex == 0) {
        float s = 0;
        for (int j = 0; j < THREADS; ++j) s += cache[j];
        atomicAdd(c, s);
    }
}
