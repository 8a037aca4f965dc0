// golden: refuses="a row loop reads y, which it stores to"
// y[c] is stored and y[c + 1] read: another lane's element.
__global__ void k(float* out, const float* inp, int N, int C) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N) return;
  const float* x = inp + idx * C;
  float* y = out + idx * C;
  float s = 0.0f;
  for (int j = 0; j < C - 1; j++) {
    y[j] = x[j];
    s += y[j + 1];
  }
  out[idx] = s;
}
