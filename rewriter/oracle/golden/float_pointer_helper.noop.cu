// golden: refuses="calls sum32, which takes or returns float"
// a helper taking float*: passing it promoted shared memory would not type-check, and it adds in float
__device__ void sum32(float* s) { s[0] += s[1]; }
__global__ void k(int n, const float* x, float* y) {
  __shared__ float s[32];
  s[threadIdx.x] = x[threadIdx.x] * 0.5f;
  sum32(s);
  y[0] = s[0];
}
