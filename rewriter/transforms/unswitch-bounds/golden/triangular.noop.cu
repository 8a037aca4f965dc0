// golden: refuses="no bounds guard on a tap"
// The inner loop's bound is the outer loop's variable: its range is not invariant, so its extreme
// is not one value the fast path could test.
__global__ void k(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float s = 0.0f;
        for (int a = 0; a < 4; ++a)
            for (int b = 0; b <= a; ++b) {
                int j = i - b;
                if (j >= 0)
                    s += in[j] * a;
            }
        out[i] = s;
    }
}
