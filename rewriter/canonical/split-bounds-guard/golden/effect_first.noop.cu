// golden: refuses="a condition before the bounds check has side effects"
// The first condition counts the threads that test it: evaluating it only below n would change
// the count.
__global__ void k(float* data, unsigned int* tested, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (atomicAdd(tested, 1u) < 1000000u && gid < n)
        data[gid] = 0.0f;
}
