// golden: refuses="the kernel has no vector pointer cast from a scalar pointer"
__global__ void k(int n, const float4* x, float4* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}
