// golden: vector_width=4 refuses="lanes of a warp may leave the kernel before the row's loops"
// Half the lanes leave: the scalar form keeps the elements the other half handled, float4 mode would not.
__global__ void k(int rows, int cols, const float* in, float* out) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (r >= rows) return;
  if (kl_lane >= 16) return;
  const float* x = in + (size_t)r * cols;
  float* y = out + (size_t)r * cols;
  for (int c = 0 + kl_lane; c < cols; c += 32) y[c] = x[c] * 2.0f;
  for (int c = 0 + kl_lane; c < cols; c += 32) y[c] += x[c];
}
