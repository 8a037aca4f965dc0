// golden: refuses="share one float type"
// one type spec for a promoted local and a pointer into a float buffer
__global__ void k(int n, const float* x, float* y) {
  float a = 1.0f, *p = y;
  p[0] = a * x[0];
}
