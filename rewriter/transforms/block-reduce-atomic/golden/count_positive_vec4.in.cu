// golden: vector_width=4
// An unsigned count of float elements: float4 loads, an unsigned accumulator.
__global__ void k(int n, const float* x, unsigned int* count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(count, x[i] > 0.0f ? 1u : 0u);
}
