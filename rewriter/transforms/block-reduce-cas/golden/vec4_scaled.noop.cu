// golden: vector_width=4 refuses="the value reads scale[0], not scale[i] at the loop index"
// A read that is not at the loop index (a scalar through a pointer): not a plain read of x[i].
__global__ void k(int n, const float* x, const float* scale, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i] * scale[0];
    int* addr = reinterpret_cast<int*>(out);
    int old = *addr;
    while (v > __int_as_float(old)) {
      int assumed = old;
      old = atomicCAS(addr, assumed, __float_as_int(v));
      if (old == assumed) break;
    }
  }
}
