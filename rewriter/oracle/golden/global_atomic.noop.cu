// golden: refuses="accumulates into float memory through atomicAdd: the oracle would round there too"
__global__ void k(int n, const float* x, float* total) {
  float partial = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) partial += x[i];
  atomicAdd(total, partial);
}
