// golden: vector_width=4
// The vec4 skill's form (examples/experts reduce_max): float4 loads of x when x is 16-byte aligned,
// the n % 4 tail, and the scalar scan when it is not; the update once per block, as without it.
__global__ void k(int n, const float* x, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    int* addr = reinterpret_cast<int*>(out);
    int old = *addr;
    while (v > __int_as_float(old)) {
      int assumed = old;
      old = atomicCAS(addr, assumed, __float_as_int(v));
      if (old == assumed) break;
    }
  }
}
