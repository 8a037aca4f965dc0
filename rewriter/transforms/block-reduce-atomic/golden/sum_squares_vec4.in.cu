// golden: vector_width=4 coarsen=4
// One array read twice: one float4 load, both reads replaced by the lane.
__global__ void k(int n, const float* x, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i] * x[i]);
}
