// golden: refuses="side effects"
__global__ void k(const float* x, float* out, int n)
{
    float m = 0.0f;
    int j = 0;
    while (j < n)
        if (x[j++] > m) m = x[j++];
    *out = m;
}
