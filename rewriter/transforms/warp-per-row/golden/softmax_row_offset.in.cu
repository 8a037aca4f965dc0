// golden: block_size=128
// The softmax in normal form (row pointers substituted): the row is read and written at
// idx * C + i, the written element read back by the same lane.
__global__ void k(float* out, const float* inp, int N, int C) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < N) {
    float maxval = -INFINITY;
    for (int i = 0; i < C; ++i) maxval = fmaxf(maxval, inp[idx * C + i]);
    float sum = 0.0f;
    for (int i = 0; i < C; ++i) {
      out[idx * C + i] = expf(inp[idx * C + i] - maxval);
      sum += out[idx * C + i];
    }
    for (int i = 0; i < C; ++i) out[idx * C + i] /= sum;
  }
}
