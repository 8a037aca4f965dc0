// An expert with its launcher in the same file: the launcher passes a pointer to const, so the
// inverse keeps x's const (dropping it would break the launch) and drops only __restrict__.
__global__ void k(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}

void launch(const float* x, float* y, int n) { k<<<(n + 255) / 256, 256>>>(x, y, n); }
