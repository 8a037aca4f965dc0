// A template over the element type, the index spelled threadIdx.x, the sum written out.
template <typename T>
__global__ void k(const T* __restrict__ in, T* __restrict__ out, unsigned long n)
{
    __shared__ T partial[256];
    T acc = T(0);
    for (unsigned long i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (unsigned long)blockDim.x * gridDim.x)
        acc += in[i];
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x >> 1; s != 0; s /= 2) {
        if (threadIdx.x < s)
            partial[threadIdx.x] = partial[threadIdx.x] + partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(out, partial[0]);
}
template __global__ void k<float>(const float*, float*, unsigned long);
