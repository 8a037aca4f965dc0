// golden: refuses="the loop around it changes s"
__global__ void k(int n, const float* x, float* y) {
  float s = 1.0f;
  for (int i = 0; i < n; ++i) {
    s += x[i];
    y[i] = x[i] / s;
  }
}
