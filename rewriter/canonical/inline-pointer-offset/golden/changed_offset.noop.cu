// golden: refuses="its offset uses base, which the kernel changes"
// The offset's variable changes after the declaration: x[0] after `base += n` is not in[base].
__global__ void k(const float* in, float* out, int n)
{
    int base = blockIdx.x * n;
    const float* x = in + base;
    base += n;
    out[base] = x[0];
}
