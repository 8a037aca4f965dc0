// golden: refuses="const_cast on 'x'"
__global__ void k(int n, const float* x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) const_cast<float*>(x)[i] = x[i] * 2.0f;
}
