// A 64-bit index (the stride is computed in its type) and the guard's brace on its own line: the
// inverse writes `if (i < n) {`, so this case is forward only.
__global__ void k(size_t n, const float* x, float* out) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
  {
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
