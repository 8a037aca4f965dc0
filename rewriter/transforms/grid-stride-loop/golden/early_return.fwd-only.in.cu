#include <cuda_runtime.h>

__global__ void k(const float* in, float* out, int n, float lo, float hi) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in[i];
  // clamp
  v = fminf(fmaxf(v, lo), hi);
  out[i] = v;
}

void run(const float* in, float* out, int n) {
  k<<<(n + 127) / 128, 128>>>(in, out, n, 0.0f, 1.0f);
}
