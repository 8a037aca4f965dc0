// golden: refuses="dynamic shared memory of float"
// A float view of a byte-typed dynamic shared array is not rewritten by the pass.
__global__ void k(int n, const float* x, float* y) {
  extern __shared__ unsigned char smem[];
  float* buf = (float*)smem;
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  buf[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  if (t == 0) {
    float s = 0.0f;
    for (int j = 0; j < blockDim.x; ++j) s += buf[j];
    y[blockIdx.x] = s;
  }
}
