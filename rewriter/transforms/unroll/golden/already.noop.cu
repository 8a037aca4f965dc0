// golden: refuses="it already has #pragma unroll"
__global__ void k(const float* x, float* y) {
  float acc = 0.0f;
#pragma unroll 2
  for (int j = 0; j < 4; ++j) acc += x[j];
  y[threadIdx.x] = acc;
}
