// float literals in every spelling and explicit casts to float in every form
using scalar = float;

__global__ void k(int n, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float t = (float)i / n;
  float u = static_cast<float>(n - i) * 1e-5F;
  scalar v = scalar(i % 7) + .5f + 2.f + 0x1p-3f;
  y[i] = t * 1.0f + u + v * float(3);
}
