// block sum: a static shared-memory tree reduction, one partial sum per block
__global__ void k(int n, const float* __restrict__ x, float* __restrict__ partial) {
  __shared__ double s[256];
  const int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  double a = 0, b;
  b = i < n ? x[i] : 0.0;
  if (i + blockDim.x * gridDim.x < n) a = x[i + blockDim.x * gridDim.x];
  s[t] = a + b;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
}
