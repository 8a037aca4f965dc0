// golden: unroll=1
// The condition written the other way round (`<expr> < v` is a maximum), a const value, the CAS
// compared in the if, and no unroll pragma (unroll=1). The update is kept verbatim both ways.
__global__ void k(int n, const float* x, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = x[i];
    int* const addr = (int*)out;
    int old = *addr, assumed;
    while (__int_as_float(old) < v) {
      assumed = old;
      if ((old = atomicCAS(addr, assumed, __float_as_int(v))) == assumed) break;
    }
  }
}
