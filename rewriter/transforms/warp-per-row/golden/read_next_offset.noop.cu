// golden: block_size=128 refuses="a row loop reads out, which it stores to"
// out[idx * C + j] is stored and out[idx * C + j + 1] read: another lane's element.
__global__ void k(float* out, const float* inp, int N, int C) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < N) {
    float s = 0.0f;
    for (int j = 0; j < C - 1; j++) {
      out[idx * C + j] = inp[idx * C + j];
      s += out[idx * C + j + 1];
    }
    out[idx * C] = s;
  }
}
