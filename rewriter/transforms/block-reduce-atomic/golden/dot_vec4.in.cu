// golden: vector_width=4
// Two arrays read at the index: both loaded as float4, one alignment check over both.
__global__ void k(int n, const float* x, const float* y, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i] * y[i]);
}
