// golden: threads=512 refuses="the kernel has shared_memory"
__global__ void k(int n, const float* x, float* y, float* last) {
  __shared__ float s;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    s = x[i];
    y[i] = 2.0f * x[i];
  }
}
