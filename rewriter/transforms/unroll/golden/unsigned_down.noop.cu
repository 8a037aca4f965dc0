// golden: refuses="the values of j do not fit its type"
// An unsigned counter is always >= 0: this loop never ends, whatever its header suggests.
__global__ void k(const float* x, float* y) {
  float acc = 0.0f;
  for (unsigned j = 3; j >= 0; --j) acc += x[j];
  y[threadIdx.x] = acc;
}
