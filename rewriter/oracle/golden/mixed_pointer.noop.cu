// golden: refuses="pointer src points into both promoted and float memory"
__global__ void k(int n, bool staged, const float* x, float* y) {
  __shared__ float stage[256];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  if (i >= n) return;
  stage[t] = x[i] * 2.0f;
  __syncthreads();
  const float* src = x + blockIdx.x * blockDim.x;
  if (staged) src = stage;
  y[i] = src[t] + 1.0f;
}
