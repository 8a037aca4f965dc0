// x becomes an integer that is not only tested for alignment: it may be written through, so it
// gets __restrict__ but no const.
__global__ void k(int n, float* __restrict__ x, float* __restrict__ y) {
  float* w = reinterpret_cast<float*>(reinterpret_cast<unsigned long long>(x) + 0);
  if (threadIdx.x == 0) w[0] = 1.0f;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}
