// A softmax row: y[j] is stored, read back at the same j (the lane's own element), then rescaled in
// place in a later loop (after the __syncwarp forward writes).
#include <math.h>

__global__ void k(float* out, const float* inp, int N, int C) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N) return;
  const float* x = inp + idx * C;
  float* y = out + idx * C;
  float maxval = -INFINITY;
  for (int j = 0; j < C; j++) maxval = fmaxf(maxval, x[j]);
  float sum = 0.0f;
  for (int j = 0; j < C; j++) {
    y[j] = expf(x[j] - maxval);
    sum += y[j];
  }
  float norm = 1.0f / sum;
  for (int j = 0; j < C; j++) y[j] *= norm;
}
