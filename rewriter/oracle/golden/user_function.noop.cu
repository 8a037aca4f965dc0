// golden: refuses="calls smooth, which takes or returns float: the promotion does not reach into it"
__device__ float smooth(float v) { return v * v * (3.0f - 2.0f * v); }

__global__ void k(int n, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = smooth(x[i]) + 0.5f;
}
