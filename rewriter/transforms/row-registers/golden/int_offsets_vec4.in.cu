// golden: max_cols=1024 vector_width=4
// int rows (int4), a store loop from 4 (a multiple of 4: vector stores from the second vector on) and
// one from 2 (scalar stores, each element guarded). Both start off a multiple of 32: the scalar form
// refuses them, float4 mode takes them (each element is stored by exactly one lane, from values
// every lane shares).
__global__ void k(int rows, int cols, const int* in, int* out, int* out2) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (r >= rows) return;
  const int* x = in + (size_t)r * cols;
  int* y = out + (size_t)r * cols;
  int* z = out2 + (size_t)r * cols;
  int s = 0;
  for (int c = 0 + kl_lane; c < cols; c += 32) s += x[c];
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, kl_offset);
  for (int c = 4 + kl_lane; c < cols; c += 32) y[c] = x[c] - s;
  __syncwarp();
  for (int c = 2 + kl_lane; c < cols; c += 32) z[c] = x[c] * s;
}
