// golden: refuses="its trip count 64 exceeds max_trip 32"
__global__ void k(const float* x, float* y) {
  float acc = 0.0f;
  for (int j = 0; j < 64; ++j) acc += x[j];
  y[threadIdx.x] = acc;
}
