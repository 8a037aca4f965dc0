// golden: refuses="no warp accesses s by column"
__global__ void k(const float* in, float* out, int cols) {
  __shared__ float s[8][32];
  s[threadIdx.y][threadIdx.x] = in[(blockIdx.x * 8 + threadIdx.y) * cols + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    float acc = 0.0f;
    for (int k = 0; k < 32; ++k) acc += s[threadIdx.y][k];
    out[blockIdx.x * 8 + threadIdx.y] = acc;
  }
}
