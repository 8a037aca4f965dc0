// golden: block_size=256 coarsen=8 refuses="reads blockIdx or gridDim besides the global index"
// One partial per block: a second launch reads grid.x partials, so the grid must not shrink.
__global__ void k(const float* in, float* partial, int n)
{
    __shared__ float s[256];
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = (gid < n) ? in[gid] : 0.0f;
    __syncthreads();
    for (int st = blockDim.x / 2; st > 0; st >>= 1) {
        if (threadIdx.x < st) s[threadIdx.x] += s[threadIdx.x + st];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}
