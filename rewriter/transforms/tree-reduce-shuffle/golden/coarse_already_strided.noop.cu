// golden: block_size=256 coarsen=8 refuses="the load's condition is not"
// Each thread already sums a grid-stride run before the tree (its grid is the launcher's cap).
__global__ void k(int N, const float* a, float* c)
{
    __shared__ float cache[256];
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    float temp = 0;
    while (tid < N) {
        temp += a[tid];
        tid += blockDim.x * gridDim.x;
    }
    cache[threadIdx.x] = temp;
    __syncthreads();
    for (int i = blockDim.x / 2; i > 0; i >>= 1) {
        if (threadIdx.x < i) cache[threadIdx.x] += cache[threadIdx.x + i];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(c, cache[0]);
}
