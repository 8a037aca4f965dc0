// golden: refuses="the step's guard is not"
// tid is advanced by a grid-stride loop before the tree: it is not the thread's slot any more.
__global__ void k(const float* in, float* out, int n)
{
    __shared__ float s[256];
    int tid = threadIdx.x;
    float acc = 0.0f;
    for (; tid < n; tid += blockDim.x) acc += in[tid];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (tid < h)
            s[tid] += s[tid + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, s[0]);
}
