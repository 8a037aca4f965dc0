// golden: refuses="the value v is int, not float or double"
__global__ void k(int n, const int* x, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int v = x[i];
    int old = *out;
    while (v > old) {
      int assumed = old;
      old = atomicCAS(out, assumed, v);
      if (old == assumed) break;
    }
  }
}
