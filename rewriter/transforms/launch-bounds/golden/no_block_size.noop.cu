// golden: refuses="no single block size is known"
// golden: block_size=none
// The launches do not agree on one block size, so no bound can be promised.
__global__ void k(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

void launch(const float* x, float* y, int n, int block) {
  k<<<(n + block - 1) / block, block>>>(x, y, n);
}
