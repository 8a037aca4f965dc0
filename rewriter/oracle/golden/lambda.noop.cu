// golden: refuses="a lambda"
// a lambda returning float: its body is not promoted
__global__ void k(int n, const float* x, float* y) {
  auto f = [&](int j) { return x[j] * 2.0f; };
  y[0] = f(1);
}
