// golden: refuses="the kernel calls no __device__ function defined in this file"
__global__ void k(int n, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = sqrtf(x[i]);
}
