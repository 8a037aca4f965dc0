// golden: refuses="already inline"
__device__ inline float twice(float v) { return 2.0f * v; }

__device__ __noinline__ float thrice(float v) { return 3.0f * v; }

__global__ void k(int n, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = twice(x[i]) + thrice(x[i]);
}
