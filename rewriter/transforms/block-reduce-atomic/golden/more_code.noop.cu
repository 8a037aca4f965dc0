// golden: refuses="the guarded code is more than one atomic call"
__global__ void k(int n, const float* x, float* out, float* copy) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    copy[i] = x[i];
    atomicAdd(out, x[i]);
  }
}
