template <typename T>
__device__ T square(T v) { return v * v; }

__global__ void k(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = square(y[i]);
}
