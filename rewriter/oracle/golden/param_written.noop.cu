// golden: refuses="writes the float parameter scale"
__global__ void k(int n, int steps, float scale, const float* x, float* y) {
  for (int s = 0; s < steps; ++s) scale *= 0.9f;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * scale;
}
