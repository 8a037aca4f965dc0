// golden: unroll=4
// The skills' form: the accumulation loop unrolled 4 times (four loads in flight per thread).
__global__ void k(int n, const float* x, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i]);
}
