// y = alpha * A x + beta * y, one thread per row, unrolled by two
__global__ void k(int m, int n, float alpha, const float* A, const float* x, float beta, float* y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < m) {
    const float* a_row = A + (size_t)r * n;
    float even = 0.0f, odd = 0.0f;
    int c = 0;
    for (; c + 1 < n; c += 2) {
      even += a_row[c] * x[c];
      odd += a_row[c + 1] * x[c + 1];
    }
    if (c < n) even += a_row[c] * x[c];
    const float dot = even + odd;
    decltype(alpha) scaled = alpha * dot;
    y[r] = scaled + beta * y[r];
  }
}
