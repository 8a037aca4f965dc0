// y = alpha * A x + beta * y, one thread per row, unrolled by two
__global__ void k(int m, int n, float alpha, const float* A, const float* x, float beta, float* y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < m) {
    const float* a_row = A + (size_t)r * n;
    double even = 0.0, odd = 0.0;
    int c = 0;
    for (; c + 1 < n; c += 2) {
      even += (double)(a_row[c]) * x[c];
      odd += (double)(a_row[c + 1]) * x[c + 1];
    }
    if (c < n) even += (double)(a_row[c]) * x[c];
    const double dot = even + odd;
    double scaled = alpha * dot;
    y[r] = scaled + (double)(beta) * y[r];
  }
}
