// The first loop already has the user's #pragma unroll; forward adds one to the second. The
// inverse cannot tell the two apart and would remove both, so this case is forward-only.
__global__ void k(const float* x, float* y) {
  float a = 0.0f, b = 0.0f;
  #pragma unroll
  for (int j = 0; j < 8; ++j) a += x[j];
  #pragma unroll
  for (int j = 0; j < 8; ++j) b += x[8 + j];
  y[threadIdx.x] = a * b;
}
