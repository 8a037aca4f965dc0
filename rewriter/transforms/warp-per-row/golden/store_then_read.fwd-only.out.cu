// A softmax row: y[j] is stored, read back at the same j (the lane's own element), then rescaled in
// place in a later loop (after the __syncwarp forward writes).
#include <math.h>

__global__ void k(float* out, const float* inp, int N, int C) {
  int idx = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int kl_lane = threadIdx.x % 32;
  if (idx >= N) return;
  const float* x = inp + idx * C;
  float* y = out + idx * C;
  float maxval = -INFINITY;
  for (int j = 0 + kl_lane; j < C; j += 32) maxval = fmaxf(maxval, x[j]);
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) maxval = fmaxf(maxval, __shfl_xor_sync(0xffffffffu, maxval, kl_offset));
  float sum = 0.0f;
  for (int j = 0 + kl_lane; j < C; j += 32) {
    y[j] = expf(x[j] - maxval);
    sum += y[j];
  }
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, kl_offset);
  __syncwarp();
  float norm = 1.0f / sum;
  for (int j = 0 + kl_lane; j < C; j += 32) y[j] *= norm;
}
