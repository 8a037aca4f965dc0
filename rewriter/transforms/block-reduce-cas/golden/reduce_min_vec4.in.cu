// golden: vector_width=4 unroll=1
// The minimum of |x|, without the pragma: fabsf applied lane by lane.
__global__ void k(int n, const float* x, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = fabsf(x[i]);
    int* addr = reinterpret_cast<int*>(out);
    int old = *addr;
    while (v < __int_as_float(old)) {
      int assumed = old;
      old = atomicCAS(addr, assumed, __float_as_int(v));
      if (old == assumed) break;
    }
  }
}
