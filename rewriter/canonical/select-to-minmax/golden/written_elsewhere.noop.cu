// golden: refuses="also written otherwise"
__global__ void k(const float* x, float* out, int n, float bias)
{
    float m = 0.0f;
    for (int j = 0; j < n; ++j) {
        if (x[j] > m) m = x[j];
        m = m * bias;
    }
    *out = m;
}
