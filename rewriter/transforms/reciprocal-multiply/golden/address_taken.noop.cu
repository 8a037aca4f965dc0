// golden: refuses="the address of s is taken"
__global__ void k(int n, const float* x, float* y) {
  float s = 2.0f;
  float* ps = &s;
  for (int i = 0; i < n; ++i) {
    *ps += x[i];
    y[i] = x[i] / s;
  }
}
