// The pointer is declared in a loop's body with an offset on that loop's counter: it is the same
// within each iteration.
__global__ void k(const double* in, double* out, int n, int m)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double s = 0.0;
        for (int j = 0; j < m; ++j) {
            s += in[j * n + i] * in[j * n + i];
        }
        out[i] = s;
    }
}
