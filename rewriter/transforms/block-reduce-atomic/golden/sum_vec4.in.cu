// golden: vector_width=4 unroll=4
// The vec4 skill's form (examples/experts reduce_sum): float4 loads of x when x is 16-byte aligned,
// the n % 4 tail, and the scalar loop when it is not.
__global__ void k(int n, const float* x, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i]);
}
