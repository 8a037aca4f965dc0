// golden: max_cols=1024
// The transfer softmax in normal form after warp-per-row: the row is read as inp[idx * C + i]
// (its row pointer substituted), and out[idx * C + i] is written and read back by the same lane.
__global__ void k(float* out, const float* inp, int N, int C) {
  int idx = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (idx < N) {
    float maxval = -INFINITY;
    for (int i = 0 + kl_lane; i < C; i += 32) maxval = fmaxf(maxval, inp[idx * C + i]);
    for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) maxval = fmaxf(maxval, __shfl_xor_sync(0xffffffffu, maxval, kl_offset));
    float sum = 0.0f;
    for (int i = 0 + kl_lane; i < C; i += 32) {
      out[idx * C + i] = expf(inp[idx * C + i] - maxval);
      sum += out[idx * C + i];
    }
    for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, kl_offset);
    __syncwarp();
    for (int i = 0 + kl_lane; i < C; i += 32) out[idx * C + i] /= sum;
  }
}
