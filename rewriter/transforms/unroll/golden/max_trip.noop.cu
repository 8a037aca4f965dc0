// golden: max_trip=2 refuses="its trip count 4 exceeds max_trip 2"
__global__ void k(const float* x, float* y) {
  float acc = 0.0f;
  for (int j = 0; j < 4; ++j) acc += x[j];
  y[threadIdx.x] = acc;
}
