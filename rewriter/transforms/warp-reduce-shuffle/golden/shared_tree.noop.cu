// golden: refuses="no warp reduction through shared memory"
// A block tree in the kernel's own shared memory is tree-reduce-shuffle's, not this transform's.
__global__ void k(const float* x, float* out) {
  __shared__ float s[256];
  s[threadIdx.x] = x[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  for (int o = 128; o > 0; o >>= 1) {
    if (threadIdx.x < o) s[threadIdx.x] += s[threadIdx.x + o];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
