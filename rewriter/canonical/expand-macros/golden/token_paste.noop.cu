// golden: refuses="uses # or ##"
#define FIELD(p, name) p##_##name

__global__ void k(const float* in_x, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = FIELD(in, x)[i];
}
