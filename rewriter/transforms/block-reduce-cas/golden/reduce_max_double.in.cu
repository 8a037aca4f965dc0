// golden: coarsen=8
// double: the 64-bit CAS on the bits of the value, fmax and a double shared array.
__global__ void k(int n, const double* x, double* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double v = x[i] * x[i];
    unsigned long long* addr = reinterpret_cast<unsigned long long*>(out);
    unsigned long long old = *addr;
    while (v > __longlong_as_double(old)) {
      unsigned long long assumed = old;
      old = atomicCAS(addr, assumed, __double_as_longlong(v));
      if (old == assumed) break;
    }
  }
}
