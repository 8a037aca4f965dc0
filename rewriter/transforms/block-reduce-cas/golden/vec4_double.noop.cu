// golden: vector_width=4 coarsen=8 refuses="x has element type const double"
// A pointer of another element type: double is not loaded as a 4-wide vector.
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
