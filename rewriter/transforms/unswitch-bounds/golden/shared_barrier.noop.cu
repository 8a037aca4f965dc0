// golden: refuses="barrier"
// The guarded taps share a block with a barrier: a fast path taken by some threads of the block
// and not others would split the barrier.
__global__ void k(const float* in, float* out, int n)
{
    __shared__ float tile[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.0f;
    for (int d = -2; d <= 2; ++d) {
        int j = i + d;
        if (j >= 0 && j < n)
            s += in[j];
    }
    tile[threadIdx.x] = s;
    __syncthreads();
    if (i < n) out[i] = tile[threadIdx.x] + tile[(threadIdx.x + 1) % 256];
}
