// The stride as a local halved in a while loop; grid-stride sums before the tree.
__global__ void k(int N, const float* a, const float* b, float* c)
{
    __shared__ float cache[256];
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    int cacheIndex = threadIdx.x;
    float temp = 0;
    while (tid < N) {
        temp += a[tid] * b[tid];
        tid += blockDim.x * gridDim.x;
    }
    cache[cacheIndex] = temp;
    __syncthreads();
    int half = blockDim.x / 2;
    while (half != 0) {
        if (cacheIndex < half)
            cache[cacheIndex] += cache[cacheIndex + half];
        __syncthreads();
        half /= 2;
    }
    if (cacheIndex == 0)
        atomicAdd(c, cache[0]);
}
