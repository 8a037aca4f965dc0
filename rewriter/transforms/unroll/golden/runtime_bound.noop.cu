// golden: refuses="its bound is not a compile-time constant"
// The trip count depends on the argument m.
__global__ void k(const float* x, float* y, int m) {
  float acc = 0.0f;
  for (int j = 0; j < m; ++j) acc += x[j];
  y[threadIdx.x] = acc;
}
