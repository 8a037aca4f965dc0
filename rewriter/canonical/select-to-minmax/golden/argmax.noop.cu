// golden: refuses="no running max or min"
// Two assignments in the branch (the maximum and its index): not a plain max.
__global__ void k(const float* x, float* out, int* where, int n)
{
    float best = -1e30f;
    int at = 0;
    for (int j = 0; j < n; ++j)
        if (x[j] > best) { best = x[j]; at = j; }
    *out = best;
    *where = at;
}
