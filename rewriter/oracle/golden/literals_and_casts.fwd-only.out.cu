// float literals in every spelling and explicit casts to float in every form
using scalar = float;

__global__ void k(int n, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double t = (double)i / n;
  double u = static_cast<double>(n - i) * 1e-5;
  double v = double(i % 7) + .5 + 2. + 0x1p-3;
  y[i] = t * 1.0 + u + v * double(3);
}
